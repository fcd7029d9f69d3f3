import SessionPolicy

/// The daemon loops' clock: monotonic time since the loop was made, as the policy's
/// ``Timestamp`` (every real loop reads time here and nowhere else).
struct MonotonicClock: Sendable {
    private let origin = ContinuousClock.now

    var now: Timestamp {
        let (seconds, attoseconds) = (ContinuousClock.now - origin).components
        return Timestamp(nanoseconds: UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000))
    }
}
