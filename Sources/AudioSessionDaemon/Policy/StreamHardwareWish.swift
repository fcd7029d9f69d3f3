import AppProcesses
import SessionPolicy

/// Reads the hardware wishes an app already states on its stream node, for apps that do not
/// use the session API: `node.latency = "64/48000"` (a buffer of 64 frames at 48 kHz) and
/// `node.rate = "1/96000"`.
///
/// Nearly every client sets `node.latency` (pw-cat asks for 100 ms, pipewire-pulse derives it
/// from the pulse buffer size), and PipeWire already gives each graph the smallest latency its
/// nodes ask for. So only a stream that asks for *less* than the default quantum states a wish
/// worth forcing (a DAW, a game, a call with tight latency); its `node.rate`, if any and not the
/// default rate, comes with it. Everything else is left to PipeWire's own dynamic quantum.
enum StreamHardwareWish {
    static func wish(from properties: [String: String], limits: HardwareLimits) -> HardwareWish? {
        guard let latency = properties["node.latency"], let (frames, rate) = fraction(latency),
            frames > 0, rate > 0
        else { return nil }
        let duration = Double(frames) / Double(rate)
        let defaultDuration = Double(limits.defaultQuantum) / Double(limits.defaultSampleRate)
        guard duration < defaultDuration else { return nil }
        var wish = HardwareWish(ioBufferDuration: duration)
        if let nodeRate = properties["node.rate"], let (numerator, denominator) = fraction(nodeRate),
            numerator == 1, denominator > 0, denominator != limits.defaultSampleRate
        {
            wish.sampleRate = Double(denominator)
        }
        return wish
    }

    /// "64/48000" → (64, 48000).
    private static func fraction(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let numerator = Int(parts[0].trimmingWhitespace()),
            let denominator = Int(parts[1].trimmingWhitespace())
        else { return nil }
        return (numerator, denominator)
    }
}
