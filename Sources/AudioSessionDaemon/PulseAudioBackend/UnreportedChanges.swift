import SessionPolicy

/// Changes we sent the server for streams that it has not reported yet. PulseAudio saves a
/// change into the stream's stream-restore record in the same dispatch that reports it to
/// clients, so the exit writes the records back once nothing is unreported.
///
/// A volume or mute counts as reported when the stream shows the value we wrote last: the
/// report of an earlier write (a ramp's step still on its way when the exit's own write went
/// out) says nothing about the last one, whose save would land after the write-back. A move
/// counts as reported with the stream's next change (a move to where the stream is already
/// changes nothing the server would report).
struct UnreportedChanges {
    private var volumes: [StreamID: [UInt32]] = [:]
    private var mutes: [StreamID: Bool] = [:]
    private var moves: Set<StreamID> = []

    var isEmpty: Bool { volumes.isEmpty && mutes.isEmpty && moves.isEmpty }

    /// The streams with a change not reported yet.
    var count: Int { Set(volumes.keys).union(mutes.keys).union(moves).count }

    /// A volume we send for a stream whose last reported volume is `current`: one the server
    /// will report, unless it is what the stream has and no earlier write is on its way.
    mutating func write(volume channels: [UInt32], of id: StreamID, current: [UInt32]) {
        if channels != current || volumes[id] != nil { volumes[id] = channels }
    }

    /// A mute we send for a stream last reported as `current` (as for volumes).
    mutating func write(muted: Bool, of id: StreamID, current: Bool) {
        if muted != current || mutes[id] != nil { mutes[id] = muted }
    }

    mutating func moved(_ id: StreamID) { moves.insert(id) }

    /// The server reported the stream as it is now.
    mutating func reported(_ id: StreamID, volume: [UInt32], muted: Bool) {
        if volumes[id] == volume { volumes[id] = nil }
        if mutes[id] == muted { mutes[id] = nil }
        moves.remove(id)
    }

    /// The stream is gone: nothing of it will be reported, nor saved.
    mutating func forget(_ id: StreamID) {
        volumes[id] = nil
        mutes[id] = nil
        moves.remove(id)
    }
}
