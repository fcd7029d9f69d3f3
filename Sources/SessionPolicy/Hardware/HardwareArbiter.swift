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

    /// The allowed rate nearest to a preference (ties: the higher rate).
    public func snappedRate(_ preferred: Double) -> Int {
        guard !limits.allowedSampleRates.isEmpty else { return Int(preferred.rounded()) }
        return limits.allowedSampleRates.min { lhs, rhs in
            let l = abs(Double(lhs) - preferred), r = abs(Double(rhs) - preferred)
            return l != r ? l < r : lhs > rhs
        }!
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
