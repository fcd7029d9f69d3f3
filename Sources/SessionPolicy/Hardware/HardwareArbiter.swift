/// Turns competing preferred values into one system choice (reference §7): non-mixable
/// active sessions take precedence over mixable ones; among equals the most recently
/// activated wins; quantum = duration × rate, rounded to a power of two and clamped.
public struct HardwareArbiter: Sendable {
    public var limits: HardwareLimits
    public init(limits: HardwareLimits) { self.limits = limits }

    /// A contender for the hardware: an active session with wishes.
    public struct Contender: Sendable {
        public var wish: HardwareWish
        public var isMixable: Bool
        /// Activation order: higher is more recent.
        public var activationSerial: UInt64
        public init(wish: HardwareWish, isMixable: Bool, activationSerial: UInt64) {
            self.wish = wish
            self.isMixable = isMixable
            self.activationSerial = activationSerial
        }
    }

    /// The winning wish per value. Each value is arbitrated on its own, so a DAW's buffer
    /// and a player's rate can both be honoured when they do not conflict.
    public func choice(among contenders: some Sequence<Contender>) -> HardwareChoice {
        var rateWinner: Contender?
        var bufferWinner: Contender?
        for contender in contenders {
            if contender.wish.sampleRate != nil, Self.outranks(contender, rateWinner) { rateWinner = contender }
            if contender.wish.ioBufferDuration != nil, Self.outranks(contender, bufferWinner) { bufferWinner = contender }
        }
        var rate: Int?
        if let preferred = rateWinner?.wish.sampleRate { rate = snappedRate(preferred) }
        var frames: Int?
        if let duration = bufferWinner?.wish.ioBufferDuration {
            frames = quantum(duration: duration, rate: rate ?? limits.defaultSampleRate)
        }
        return HardwareChoice(sampleRate: rate, quantum: frames)
    }

    static func outranks(_ candidate: Contender, _ current: Contender?) -> Bool {
        guard let current else { return true }
        if candidate.isMixable != current.isMixable { return !candidate.isMixable }
        return candidate.activationSerial > current.activationSerial
    }

    /// The allowed rate for a preference: itself when allowed. Otherwise, as PipeWire itself
    /// picks a rate for a node, the allowed rate at or above it that shares the largest divisor
    /// with it (the fewest resampler phases: 8 kHz speech runs at 48 kHz, not at the nearer
    /// 44.1, which would also switch a graph at 48 kHz under the music), the nearer on a tie;
    /// with none above it, the nearest (ties: the higher rate).
    public func snappedRate(_ preferred: Double) -> Int {
        let allowed = limits.allowedSampleRates
        guard !allowed.isEmpty else { return Int(preferred.rounded()) }
        let wanted = Int(preferred.rounded())
        if allowed.contains(wanted) { return wanted }
        func distance(_ rate: Int) -> Double { abs(Double(rate) - preferred) }
        let above = allowed.filter { $0 >= wanted }
        if wanted > 0, let best = above.max(by: { lhs, rhs in
            let l = Self.greatestCommonDivisor(lhs, wanted), r = Self.greatestCommonDivisor(rhs, wanted)
            return l != r ? l < r : distance(lhs) > distance(rhs)
        }) {
            return best
        }
        return allowed.min { lhs, rhs in distance(lhs) != distance(rhs) ? distance(lhs) < distance(rhs) : lhs > rhs }!
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    /// duration × rate, rounded to the nearest power of two (geometrically), clamped to the
    /// allowed range (whose bounds are themselves rounded inward to powers of two).
    public func quantum(duration: Double, rate: Int) -> Int {
        let frames = max(1, duration * Double(rate))
        var power = 1
        while power * 2 <= Int(frames.rounded(.down)) { power *= 2 }
        // power <= frames < 2*power: pick by the geometric midpoint power*sqrt(2).
        let chosen = frames >= Double(power) * 1.4142135623730951 ? power * 2 : power
        var lower = 1
        while lower < limits.quantumRange.lowerBound { lower *= 2 }
        var upper = lower
        while upper * 2 <= limits.quantumRange.upperBound { upper *= 2 }
        return min(max(chosen, lower), upper)
    }

    /// What a session is told it got.
    public func actualValues(sampleRate: Int, quantum: Int) -> HardwareValues {
        HardwareValues(sampleRate: Double(sampleRate), ioBufferDuration: Double(quantum) / Double(sampleRate))
    }
}
