/// The shape of a gain ramp of our own `Props.volume` factor: the daemon samples it to step
/// the factor itself (PipeWire 0.3.65), or hands it whole to a server that ramps natively
/// (PipeWire ≥ 0.3.68: same duration, same step, linear). Pure: the same ramp always yields
/// the same steps, and the last step is exactly `to`, so an unduck restores exactly 1.0.
public struct DuckingRamp: Hashable, Sendable {
    public var from: Double
    public var to: Double
    public var duration: Duration
    /// Time between steps.
    public var step: Duration

    public init(from: Double, to: Double, duration: Duration, step: Duration = .milliseconds(10)) {
        self.from = from
        self.to = to
        self.duration = duration
        self.step = step > .zero ? step : .milliseconds(10)
    }

    /// The gain `elapsed` after the ramp started: linear in amplitude, exact at both ends.
    public func gain(after elapsed: Duration) -> Double {
        guard duration > .zero, elapsed < duration else { return elapsed <= .zero && duration > .zero ? from : to }
        guard elapsed > .zero else { return from }
        let fraction = Self.seconds(elapsed) / Self.seconds(duration)
        return from + (to - from) * fraction
    }

    /// Every step to write, with its offset from the start; the last is `(duration, to)`.
    public var steps: [(offset: Duration, gain: Double)] {
        guard duration > .zero else { return [(.zero, to)] }
        var result: [(offset: Duration, gain: Double)] = []
        var offset = step
        while offset < duration {
            result.append((offset, gain(after: offset)))
            offset += step
        }
        result.append((duration, to))
        return result
    }

    /// Ramp from the current gain toward a decision's target.
    public static func toward(_ target: Double, from current: Double, over duration: Duration, step: Duration = .milliseconds(10)) -> DuckingRamp {
        DuckingRamp(from: current, to: target, duration: duration, step: step)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
