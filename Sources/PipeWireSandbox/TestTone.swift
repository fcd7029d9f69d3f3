import Foundation

/// A WAV file of a quiet sine tone, generated here, long enough to keep a player busy.
public enum TestTone {
    /// Writes a 16-bit PCM WAV and returns its URL.
    public static func write(
        to url: URL, seconds: Double = 60, sampleRate: Int = 48_000, channels: Int = 2, frequency: Double = 440,
        amplitude: Double = 0.1
    ) throws -> URL {
        let frames = Int(seconds * Double(sampleRate))
        let dataSize = frames * channels * 2
        var data = Data(capacity: 44 + dataSize)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + dataSize))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))  // PCM
        append(UInt16(channels))
        append(UInt32(sampleRate))
        append(UInt32(sampleRate * channels * 2))
        append(UInt16(channels * 2))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(dataSize))
        var samples = [Int16](repeating: 0, count: frames * channels)
        let step = 2 * Double.pi * frequency / Double(sampleRate)
        for frame in 0..<frames {
            let value = Int16(amplitude * Double(Int16.max) * sin(step * Double(frame)))
            for channel in 0..<channels { samples[frame * channels + channel] = value.littleEndian }
        }
        samples.withUnsafeBytes { data.append(contentsOf: $0) }
        try data.write(to: url)
        return url
    }
}
