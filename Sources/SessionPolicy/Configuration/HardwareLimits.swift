/// What the hardware arbitration may choose from, and what it returns to when nobody asks.
public struct HardwareLimits: Hashable, Sendable {
    /// System sample rate when no session prefers one.
    public var defaultSampleRate: Int
    /// System quantum (frames) when no session prefers an I/O buffer duration.
    public var defaultQuantum: Int
    /// Smallest and largest quantum we ever force (PipeWire's `clock.min-quantum` / `max-quantum`).
    public var quantumRange: ClosedRange<Int>
    /// Rates a session may get; a preference is snapped to the nearest one.
    public var allowedSampleRates: [Int]

    public init(
        defaultSampleRate: Int = 48_000, defaultQuantum: Int = 1024,
        quantumRange: ClosedRange<Int> = 32...8192,
        allowedSampleRates: [Int] = [8_000, 16_000, 22_050, 32_000, 44_100, 48_000, 88_200, 96_000, 176_400, 192_000]
    ) {
        self.defaultSampleRate = defaultSampleRate
        self.defaultQuantum = defaultQuantum
        self.quantumRange = quantumRange
        self.allowedSampleRates = allowedSampleRates
    }
}
