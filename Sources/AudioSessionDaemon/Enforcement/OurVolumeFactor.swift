import SessionPolicy

/// The policy's share of one stream's volume, kept apart from the user's (PulseAudio's named
/// volume factor, here for every backend).
///
/// The stream's own volume when we first touch it is its *base*; we write `base × factor`, so
/// factor 1.0 restores the base exactly. Whose a reported volume is, ours or the stream's user's,
/// is ``BorrowedValue``'s rule, with the base as the user's value. A value we did not write
/// (someone set the stream's volume while it was ducked) wins: we stop adjusting that stream
/// until the policy asks again. The one exception is the stream's own base value coming back
/// (the stream, or the server for it, applied its own volume again over a duck): we write our
/// value again.
///
/// The backend's volume is never the user's per-stream volume that pavucontrol and pulse
/// clients show: on PipeWire it is our gain over it, kept apart by the converter's soft volumes
/// (``SoftShare``), so its base is 1 and every report is ours; on PulseAudio it is the stream's
/// volume, which the user shares with us.
struct OurVolumeFactor {
    private let firstBase: Float
    /// The base and our writes, from the first write on.
    private var borrowed: BorrowedValue<Float>?

    /// First touched while the stream plays at `base`.
    init(base: Float) {
        firstBase = base
    }

    /// The stream's own volume, ours to put back.
    var base: Float { borrowed?.users ?? firstBase }
    /// The last value we wrote.
    var last: Float? { borrowed?.ours }

    /// The volume to write for `factor`.
    mutating func volume(for factor: Double) -> Float {
        let value = factor == 1.0 ? base : Float(Double(base) * factor)
        if borrowed == nil { borrowed = BorrowedValue(users: base, ours: value) } else { borrowed?.write(value) }
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
        /// Someone set another value after ours landed: theirs wins.
        case external
        /// Someone set another value just before ours landed: ours lands over it, so theirs is
        /// written again, and wins.
        case externalBeforeOurs(rewrite: Float)
    }

    /// Classifies an observed volume.
    mutating func observe(_ volume: Float) -> Observation {
        guard var borrowed else { return .external }
        defer { self.borrowed = borrowed }
        switch borrowed.reported(volume) {
        case .ours:
            return borrowed.isGivenBack ? .restored : .ours
        case .usersStill, .usersAgain:
            // Written again: also where the server folded ours into the stream's own report.
            borrowed.write(borrowed.ours)
            return .reasserted(rewrite: borrowed.ours)
        case .usersBeforeOurs:
            return .externalBeforeOurs(rewrite: volume)
        case .usersChange:
            return .external
        }
    }
}
