import Synchronization

/// A value set once while the daemon is put together, before its loop runs, and only read
/// after: a handler that points back at a component built after the one that calls it.
///
/// Held under a lock (uncontended after the wiring: one atomic operation a read), so it is
/// `Sendable` by the compiler's check. A debug build stops a second wiring.
final class WiredOnce<Value: Sendable>: Sendable {
    private let state = Mutex<Value?>(nil)
    private let fallback: Value

    /// `fallback` is what is read if nothing was wired (a component used on its own in a test).
    init(fallback: Value) {
        self.fallback = fallback
    }

    func wire(_ value: Value) {
        state.withLock { current in
            assert(current == nil, "\(Value.self) wired twice")
            current = value
        }
    }

    var value: Value { state.withLock { $0 } ?? fallback }
}
