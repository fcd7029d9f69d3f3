/// The policy's share of one stream's volume, kept apart from the user's (PulseAudio's named
/// volume factor, here for every backend).
///
/// The stream's own volume when we first touch it is its *base*; we write `base × factor`, so
/// factor 1.0 restores the base exactly. A value we did not write (someone set the stream's
/// volume while it was ducked) becomes the new base and wins: we stop adjusting that stream
/// until the policy asks again. The one exception is the stream's own base value coming back
/// (the stream, or the server for it, applied its own volume again over a duck): we write our
/// value again.
///
/// The backend's volume is never the user's per-stream volume that pavucontrol and pulse
/// clients show: on PipeWire it is our gain over it, kept apart by the converter's soft volumes
/// (``SoftShare``), so its base is 1 and every report is ours; on PulseAudio it is the stream's
/// volume, which the user shares with us.
struct OurVolumeFactor: Equatable {
    /// The stream's own volume, ours to put back.
    private(set) var base: Float
    /// The values we wrote lately, newest last. A server may coalesce or reorder how it reports
    /// them, so an observed value is ours if it is any of these, not only the next.
    private var recent: [Float] = []
    /// The last value we wrote.
    private(set) var last: Float?

    /// How many recent writes are remembered (a 500 ms ramp is 50 steps).
    static let recentLimit = 128

    /// First touched while the stream plays at `base`.
    init(base: Float) {
        self.base = base
    }

    /// The volume to write for `factor`.
    mutating func volume(for factor: Double) -> Float {
        let value = factor == 1.0 ? base : Float(Double(base) * factor)
        recent.append(value)
        if recent.count > Self.recentLimit { recent.removeFirst(recent.count - Self.recentLimit) }
        last = value
        return value
    }

    /// What an observed volume means.
    enum Observation: Equatable {
        /// One of our own writes coming back.
        case ours
        /// Our own write of the base coming back: the stream is as its user had it, and we
        /// are done with it.
        case restored
        /// The stream put its own volume back: our factor was lost and must be written again.
        case reasserted(rewrite: Float)
        /// Someone set another value: theirs wins.
        case external
    }

    /// Classifies an observed volume.
    mutating func observe(_ volume: Float) -> Observation {
        if recent.contains(volume) {
            return volume == base && last == base ? .restored : .ours
        }
        if volume == base, let last, last != base {
            recent.append(last)
            return .reasserted(rewrite: last)
        }
        return .external
    }
}
