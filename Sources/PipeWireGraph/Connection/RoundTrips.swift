import CPipeWire
import PipeWireShim

/// The round trips (`pw_core_sync`) waiting on one connection, by sequence number: each
/// handler hears once, true when the server answered, false when the connection went first.
///
/// The handlers are returned, not called: one may ask for the next round trip, and must do so
/// after this value's change is done.
struct RoundTrips {
    private var waiting: [Int32: (asked: Int64, handler: (Bool) -> Void)] = [:]

    /// Asks `core` for a round trip; false when there is none to ask (no connection, or the
    /// request could not be made): the caller answers `handler` itself.
    mutating func ask(_ core: OpaquePointer?, _ handler: @escaping (Bool) -> Void) -> Bool {
        guard let core else { return false }
        let seq = pws_core_sync(core)
        guard seq >= 0 else { return false }
        waiting[seq] = (monotonicNanoseconds(), handler)
        return true
    }

    /// The server's `done` (on the core object): the handler it answers, if it is ours.
    mutating func answered(id: UInt32, seq: Int32) -> ((Bool) -> Void)? {
        guard id == PW_ID_CORE else { return nil }
        return waiting.removeValue(forKey: seq)?.handler
    }

    /// The connection goes: every waiting handler, in the order asked.
    mutating func abandonAll() -> [(Bool) -> Void] {
        defer { waiting = [:] }
        return waiting.sorted { $0.key < $1.key }.map(\.value.handler)
    }

    var isEmpty: Bool { waiting.isEmpty }

    /// How long the oldest round trip still waiting has waited (ns), nil when none waits. On
    /// CLOCK_MONOTONIC, as the loop's timers: a suspend counts as no wait.
    var longestWait: UInt64? {
        waiting.values.map(\.asked).min().map { UInt64(max(0, monotonicNanoseconds() - $0)) }
    }
}
