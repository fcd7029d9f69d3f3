import AppProcesses
import SessionPolicy

/// Reads the hardware request a stream node states: `node.latency = "64/48000"` (a buffer of 64
/// frames at 48 kHz) and `node.rate = "1/96000"`.
enum NodeHardwareRequest {
    static func request(from properties: [String: String]) -> StreamHardwareRequest? {
        guard let latency = properties["node.latency"], let (frames, rate) = fraction(latency) else { return nil }
        var request = StreamHardwareRequest(bufferFrames: frames, bufferRate: rate)
        if let nodeRate = properties["node.rate"], let (numerator, denominator) = fraction(nodeRate), numerator == 1 {
            request.sampleRate = denominator
        }
        return request
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
