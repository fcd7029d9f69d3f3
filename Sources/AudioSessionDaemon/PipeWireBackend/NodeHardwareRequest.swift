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

    /// "64/48000" → (64, 48000); spaces around either number are allowed. Read byte by byte:
    /// every new stream's properties are read here before the policy sees the stream.
    private static func fraction(_ text: String) -> (Int, Int)? {
        var numbers = (0, 0)
        var inDenominator = false
        var digits = 0  // of the number being read
        var ended = false  // spaces came after its digits
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard !ended else { return nil }
                let value = inDenominator ? numbers.1 : numbers.0
                let (tens, overflowed) = value.multipliedReportingOverflow(by: 10)
                let (next, carried) = tens.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
                guard !overflowed, !carried else { return nil }
                if inDenominator { numbers.1 = next } else { numbers.0 = next }
                digits += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                if digits > 0 { ended = true }
            case UInt8(ascii: "/"):
                guard !inDenominator, digits > 0 else { return nil }
                inDenominator = true
                digits = 0
                ended = false
            default:
                return nil
            }
        }
        guard inDenominator, digits > 0 else { return nil }
        return numbers
    }
}
