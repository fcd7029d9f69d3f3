/// What an app already asks of the hardware on its stream, without the session API, in neutral
/// terms: a buffer of `bufferFrames` at `bufferRate` Hz, and the sample rate it wants to run at.
/// Each backend reads it from its server (PipeWire: `node.latency = "64/48000"`,
/// `node.rate = "1/96000"`).
public struct StreamHardwareRequest: Hashable, Sendable {
    public var bufferFrames: Int
    public var bufferRate: Int
    public var sampleRate: Int?

    public init(bufferFrames: Int, bufferRate: Int, sampleRate: Int? = nil) {
        self.bufferFrames = bufferFrames
        self.bufferRate = bufferRate
        self.sampleRate = sampleRate
    }
}

extension HardwareWish {
    /// The wish a stream's own request amounts to, if it is one worth forcing.
    ///
    /// Nearly every client asks for some buffer (pw-cat asks for 100 ms, pipewire-pulse derives
    /// it from the pulse buffer size), and PipeWire already gives each graph the smallest
    /// latency its nodes ask for. So only a stream that asks for *less* than the default
    /// quantum states a wish (a DAW, a game, a call with tight latency); its sample rate, if
    /// any and not the default rate, comes with it. Everything else is left to the server's
    /// own dynamic quantum.
    public init?(implying request: StreamHardwareRequest, limits: HardwareLimits) {
        guard request.bufferFrames > 0, request.bufferRate > 0 else { return nil }
        let duration = Double(request.bufferFrames) / Double(request.bufferRate)
        let defaultDuration = Double(limits.defaultQuantum) / Double(limits.defaultSampleRate)
        guard duration < defaultDuration else { return nil }
        self.init(ioBufferDuration: duration)
        if let rate = request.sampleRate, rate > 0, rate != limits.defaultSampleRate {
            sampleRate = Double(rate)
        }
    }
}
