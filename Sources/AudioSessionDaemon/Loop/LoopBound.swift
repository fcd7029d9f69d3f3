/// State that lives on the daemon's loop, checked there.
///
/// A debug build checks, on every read and write, that the caller runs on `loop`, as SwiftNIO's
/// `NIOLoopBoundBox` does; a release build checks nothing. A component whose mutable state is
/// all in one of these, beside `let`s of `Sendable` types, is `Sendable` by the compiler's own
/// check, where it used to say "confined to the loop" in a comment only.
///
/// Members of the state read and write as members of the box (`state.timers[id] = nil`), in
/// place: a write does not copy the state.
@dynamicMemberLookup
final class LoopBound<Value>: @unchecked Sendable {
    // Unchecked: `stored` is only reached through `value` and the subscripts, and each checks
    // its loop in debug builds. Every test runs a debug build.
    private let loop: any DaemonLoop
    private var stored: Value

    /// Binds `value` to `loop`. The initial value may come from any thread (a component is
    /// built before its loop runs); every access after this is checked.
    init(_ value: Value, on loop: any DaemonLoop) {
        self.loop = loop
        self.stored = value
    }

    /// The whole state.
    var value: Value {
        get {
            checkLoop()
            return stored
        }
        _modify {
            checkLoop()
            yield &stored
        }
    }

    subscript<Member>(dynamicMember member: WritableKeyPath<Value, Member>) -> Member {
        get {
            checkLoop()
            return stored[keyPath: member]
        }
        _modify {
            checkLoop()
            yield &stored[keyPath: member]
        }
    }

    subscript<Member>(dynamicMember member: KeyPath<Value, Member>) -> Member {
        checkLoop()
        return stored[keyPath: member]
    }

    @inline(__always)
    private func checkLoop() {
        assert(loop.isCurrent, "\(String(reflecting: Value.self)) touched off the daemon's loop")
    }
}
