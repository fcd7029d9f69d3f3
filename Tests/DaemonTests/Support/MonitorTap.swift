import Foundation
import PipeWireSandbox

/// Records what a sink plays: a `pw-record` whose `media.class` no policy knows (so the daemon
/// leaves it alone), given DSP ports with `pw-cli` and linked to the sink's monitor ports with
/// `pw-link`. What the test hears is what the device got, after every volume was applied.
final class MonitorTap {
    static let sampleRate = 48_000
    let file: URL
    let process: ManagedProcess

    init(_ sandbox: PrivatePipeWire, device: String) throws {
        let name = "tap-\(device)"
        file = sandbox.directory.appendingPathComponent("\(name).wav")
        process = try sandbox.spawn(
            "pw-record",
            ["-P", "{ node.name = \(name) media.class = \"Audio/Tap\" }", "--channels", "2", "--format", "s16",
             "--rate", String(Self.sampleRate), file.path])
        var id: UInt32?
        try waitUntil(timeout: .seconds(5), "the tap \(name) appears") {
            id = try sandbox.dump().node(named: name)?.id
            return id != nil
        }
        try sandbox.run(
            "pw-cli",
            ["set-param", String(id!), "PortConfig",
             "{ direction: Input, mode: dsp, format: { mediaType: audio, mediaSubtype: raw, format: F32P, rate: \(Self.sampleRate), channels: 2, position: [ FL, FR ] } }"])
        try waitUntil(timeout: .seconds(5), "the tap has input ports") {
            try sandbox.dump().ports(ofNode: id!).count >= 2
        }
        for channel in ["FL", "FR"] {
            try sandbox.run("pw-link", ["\(device):monitor_\(channel)", "\(name):input_\(channel)"])
        }
    }

    func stop() { process.terminate() }

    /// The peak of the left channel in each `window` of the recording so far (what a meter
    /// shows): for a steady sine it is its amplitude, to within a sample's phase.
    func peaks(window: Duration = .milliseconds(10)) -> [Double] {
        guard let data = try? Data(contentsOf: file) else { return [] }
        let samples = Self.leftChannel(ofWAV: data)
        let (seconds, attoseconds) = window.components
        let size = max(1, Int((Double(seconds) + Double(attoseconds) / 1e18) * Double(Self.sampleRate)))
        return stride(from: 0, to: samples.count - size + 1, by: size).map { start in
            Double(samples[start..<start + size].map { abs(Int($0)) }.max() ?? 0) / Double(Int16.max)
        }
    }

    /// The left channel of a 2-channel S16 WAV; the data chunk's size is not trusted (a
    /// recording still being written, or stopped by a signal, may not have it yet).
    static func leftChannel(ofWAV data: Data) -> [Int16] {
        let bytes = [UInt8](data)
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            if id == "data" {
                let body = bytes[(offset + 8)...]
                var left: [Int16] = []
                left.reserveCapacity(body.count / 4)
                var index = body.startIndex
                while index + 4 <= body.endIndex {
                    left.append(Int16(bitPattern: UInt16(body[index]) | UInt16(body[index + 1]) << 8))
                    index += 4
                }
                return left
            }
            offset += 8 + size + (size & 1)
        }
        return []
    }
}

/// A gain change as a meter sees it, from per-window peaks: the windows it takes to get from
/// 10 % to 90 % of the way (a ramp's middle 80 %; one window for a jump).
struct LevelTransition: CustomStringConvertible {
    /// From the first window past 10 % of the way to the first at 90 % or more, inclusive.
    var windows: Int
    /// Windows strictly between 10 % and 90 % of the way.
    var intermediateWindows: Int
    var startIndex: Int

    /// The first transition from `from` to `to` at or after `start`; nil if the level never gets there.
    init?(in peaks: [Double], from: Double, to: Double, after start: Int = 0) {
        let span = to - from
        func progress(_ peak: Double) -> Double { (peak - from) / span }
        guard let begin = peaks.indices.first(where: { $0 >= start && progress(peaks[$0]) > 0.1 }),
            let end = peaks.indices.first(where: { $0 >= begin && progress(peaks[$0]) >= 0.9 })
        else { return nil }
        windows = end - begin + 1
        intermediateWindows = peaks[begin...end].filter { (0.1..<0.9).contains(progress($0)) }.count
        startIndex = begin
    }

    var description: String { "\(windows) windows from index \(startIndex), \(intermediateWindows) between 10 % and 90 %" }
}
