/// One session's wishes (reference §7): hints, set before activating.
public struct HardwareWish: Hashable, Sendable {
    /// Hz.
    public var sampleRate: Double?
    /// Seconds.
    public var ioBufferDuration: Double?
    public init(sampleRate: Double? = nil, ioBufferDuration: Double? = nil) {
        self.sampleRate = sampleRate
        self.ioBufferDuration = ioBufferDuration
    }
    public var isEmpty: Bool { sampleRate == nil && ioBufferDuration == nil }
}

/// The system choice the daemon writes into PipeWire's `settings` metadata
/// (`clock.force-rate`, `clock.force-quantum`); `nil` means "back to the system default".
public struct HardwareChoice: Hashable, Sendable, CustomStringConvertible {
    public var sampleRate: Int?
    public var quantum: Int?
    public init(sampleRate: Int? = nil, quantum: Int? = nil) {
        self.sampleRate = sampleRate
        self.quantum = quantum
    }
    /// Nobody prefers anything: restore the system defaults.
    public static let systemDefault = HardwareChoice()
    public var description: String { "rate=\(sampleRate.map(String.init) ?? "default") quantum=\(quantum.map(String.init) ?? "default")" }
}

/// Actual values, as the graph runs them, reported back to a session.
public struct HardwareValues: Hashable, Sendable {
    public var sampleRate: Double
    /// quantum / rate, seconds.
    public var ioBufferDuration: Double
    public init(sampleRate: Double, ioBufferDuration: Double) {
        self.sampleRate = sampleRate
        self.ioBufferDuration = ioBufferDuration
    }
}
