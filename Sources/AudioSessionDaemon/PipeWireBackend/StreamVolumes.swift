import PipeWireGraph

/// Applies our gain factor to a stream through its `Props.volume`, never its
/// `channelVolumes` (the user's per-stream volume, which pavucontrol and pulse clients show).
///
/// The stream's own `Props.volume` when we first touch it is its *base*; we write
/// `base × factor`, so factor 1.0 restores the base exactly. A value we did not write (someone
/// set the stream's volume while it was ducked) becomes the new base and wins: we stop
/// adjusting that stream until the policy asks again.
///
/// Confined to the loop thread.
struct StreamVolumes {
    struct Touched: Codable, Equatable {
        var base: Float
        /// Values written and not yet seen coming back from PipeWire, oldest first.
        var pending: [Float] = []
    }

    private(set) var touched: [GlobalID: Touched] = [:]

    /// The volume to write for `factor`, remembering the base on first touch; nil once the
    /// stream is back at its base and no longer ours to track.
    mutating func volume(for factor: Double, stream: GlobalID, current: Float?) -> Float {
        let base = touched[stream]?.base ?? current ?? 1.0
        let value = factor == 1.0 ? base : Float(Double(base) * factor)
        if touched[stream] == nil { touched[stream] = Touched(base: base) }
        touched[stream]?.pending.append(value)
        return value
    }

    /// Whether an observed volume is someone else's change. Our own echoes are consumed.
    mutating func observe(_ volume: Float, stream: GlobalID) -> Bool {
        guard var entry = touched[stream] else { return false }
        if let index = entry.pending.firstIndex(of: volume) {
            entry.pending.removeFirst(index + 1)
            touched[stream] = entry
            if entry.pending.isEmpty, volume == entry.base { touched[stream] = nil }  // restored: done
            return false
        }
        if entry.pending.isEmpty, volume == entry.base { return false }
        return true
    }

    /// Someone else set the volume: it is the stream's base now, and we are done with it.
    mutating func adopt(stream: GlobalID) {
        touched[stream] = nil
    }

    mutating func forget(_ stream: GlobalID) { touched[stream] = nil }
    mutating func removeAll() { touched.removeAll() }
}
