import PipeWireGraph

/// Applies our gain factor to a stream through its `Props.volume`, never its
/// `channelVolumes` (the user's per-stream volume, which pavucontrol and pulse clients show).
///
/// The stream's own `Props.volume` when we first touch it is its *base*; we write
/// `base × factor`, so factor 1.0 restores the base exactly. A value we did not write (someone
/// set the stream's volume while it was ducked) becomes the new base and wins: we stop
/// adjusting that stream until the policy asks again. The one exception is the stream's own
/// base value coming back: pw_stream re-applies its controls when its format is negotiated,
/// which undoes a duck that started before the stream ran; we write our value again.
///
/// Confined to the loop thread.
struct StreamVolumes {
    struct Touched: Codable, Equatable {
        var base: Float
        /// The values we wrote lately, newest last. PipeWire may coalesce or reorder how it
        /// reports them, so an observed value is ours if it is any of these, not only the next.
        var recent: [Float] = []
        /// The last value we wrote.
        var last: Float?
    }

    /// How many recent writes are remembered per stream (a 500 ms ramp is 50 steps).
    static let recentLimit = 128

    private(set) var touched: [GlobalID: Touched] = [:]

    /// The volume to write for `factor`, remembering the base on first touch.
    mutating func volume(for factor: Double, stream: GlobalID, current: Float) -> Float {
        var entry = touched[stream] ?? Touched(base: current)
        let value = factor == 1.0 ? entry.base : Float(Double(entry.base) * factor)
        entry.recent.append(value)
        if entry.recent.count > Self.recentLimit { entry.recent.removeFirst(entry.recent.count - Self.recentLimit) }
        entry.last = value
        touched[stream] = entry
        return value
    }

    /// What an observed `Props.volume` means.
    enum Observation: Equatable {
        /// One of our own writes coming back, or a stream we do not adjust.
        case ours
        /// The stream put its own volume back (pw_stream re-applies its controls when its
        /// format is negotiated): our factor was lost and must be written again.
        case reasserted(rewrite: Float)
        /// Someone set another value: theirs wins.
        case external
    }

    /// Classifies an observed volume.
    mutating func observe(_ volume: Float, stream: GlobalID) -> Observation {
        guard let entry = touched[stream] else { return .ours }
        if entry.recent.contains(volume) {
            if volume == entry.base, entry.last == entry.base { touched[stream] = nil }  // restored: done
            return .ours
        }
        if volume == entry.base, let last = entry.last, last != entry.base {
            touched[stream]?.recent.append(last)
            return .reasserted(rewrite: last)
        }
        return .external
    }

    /// Someone else set the volume: it is the stream's base now, and we are done with it.
    mutating func adopt(stream: GlobalID) {
        touched[stream] = nil
    }

    mutating func forget(_ stream: GlobalID) { touched[stream] = nil }
    mutating func removeAll() { touched.removeAll() }
}
