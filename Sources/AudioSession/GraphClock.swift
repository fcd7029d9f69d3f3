/// What the audio graph's clock runs at, as the daemon reports it (Manager1 `SampleRate`,
/// `IOBufferDuration`, `ClockRunning`): what every session reads as its `sampleRate` and
/// `ioBufferDuration`.
public struct GraphClock: Sendable, Equatable {
    /// Hz.
    public var sampleRate: Double
    /// Seconds: one quantum.
    public var ioBufferDuration: Double
    /// True: a running driver was seen at these values. False: nothing runs, and they are the
    /// values the graph will run at (the policy's choice, else the defaults).
    public var isRunning: Bool

    public init(sampleRate: Double, ioBufferDuration: Double, isRunning: Bool) {
        self.sampleRate = sampleRate
        self.ioBufferDuration = ioBufferDuration
        self.isRunning = isRunning
    }

    /// Frames per cycle.
    public var quantum: Int { Int((ioBufferDuration * sampleRate).rounded()) }
}
