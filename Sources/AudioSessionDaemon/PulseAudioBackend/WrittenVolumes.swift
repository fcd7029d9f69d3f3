/// The volumes we wrote to one stream lately, by the server's step each became: a volume the
/// server reports is ours when it is one of them (reports lag writes by a round trip, more
/// under load; a ramp writes a new step every 10 ms), else its user's.
///
/// Only the most recent writes are kept: an old one can no longer be reported, and forgetting
/// a recent one would make our own write look like the user's.
struct WrittenVolumes {
    static let capacity = 128

    private var writes: [(step: UInt32, volume: Float)] = []

    mutating func wrote(_ volume: Float, as step: UInt32) {
        writes.append((step, volume))
        if writes.count > Self.capacity { writes.removeFirst(writes.count - Self.capacity) }
    }

    /// The volume we wrote that became `step`, the latest such.
    func volume(at step: UInt32) -> Float? {
        writes.last { $0.step == step }?.volume
    }
}
