import Foundation
import PipeWireSandbox
import Testing

/// A denied app records silence, a granted one records the tone: measured on the samples
/// `pw-cat -r` wrote, from a virtual source fed by a test tone. The two apps are two programs
/// (copies of pw-cat under their names): what a permission belongs to is the program the
/// system vouches for, never the name a stream gives.
@Suite("Record permission on real capture", .serialized)
struct RecordPermissionTests {
    @Test func aDeniedAppRecordsSilenceAndAGrantedOneDoesNot() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        #expect(try sandbox.ctl(["permission", "deny", "deniedrecorder"]).status == 0)
        #expect(try sandbox.ctl(["permission", "grant", "grantedrecorder"]).status == 0)

        // Feed the virtual "mic" source with a tone (its input ports take what it captures).
        let tone = try sandbox.pipewire.testTone(channels: 1)
        try sandbox.pipewire.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = feeder }", "--channels", "1"])
        try waitUntil(timeout: .seconds(10), "the feeder and the mic have ports") {
            let ports = try sandbox.pipewire.run("pw-link", ["-o"]) + sandbox.pipewire.run("pw-link", ["-i"])
            return ports.contains("feeder:output_MONO") && ports.contains("mic:input_MONO")
        }
        try sandbox.pipewire.run("pw-link", ["feeder:output_MONO", "mic:input_MONO"])

        var deniedProps: [String: Any]?
        // The denied program says it is the granted one: it is still itself.
        let denied = try record(as: "deniedrecorder", claiming: "grantedrecorder", in: sandbox) { deniedProps = $0 }
        let granted = try record(as: "grantedrecorder", in: sandbox) { _ in }
        #expect(denied.count > 10_000 && granted.count > 10_000)
        let deniedPeak = denied.map { abs(Int($0)) }.max() ?? 0
        let grantedPeak = granted.map { abs(Int($0)) }.max() ?? 0
        #expect(deniedPeak == 0, "a denied app's capture is silent (peak \(deniedPeak)); its node: \(String(describing: deniedProps))")
        #expect(grantedPeak > 1_000, "a granted app's capture has the tone (peak \(grantedPeak); the tone peaks at ~3276)")
    }

    /// Records about a second as the program `app` (a copy of pw-cat) and returns the second
    /// half of the samples (the first half covers linking and the permission taking effect).
    /// `claiming` is the application.name its stream gives.
    private func record(
        as app: String, claiming name: String? = nil, in sandbox: ServiceSandbox, props: ([String: Any]?) -> Void
    ) throws -> [Int16] {
        let file = sandbox.pipewire.directory.appendingPathComponent("\(app).wav")
        let program = sandbox.pipewire.directory.appendingPathComponent(app)
        if !FileManager.default.fileExists(atPath: program.path) {
            try FileManager.default.copyItem(atPath: "/usr/bin/pw-cat", toPath: program.path)
        }
        let recorder = try sandbox.pipewire.spawn(program.path, [
            "-r", "--media-role", "Production", "--format", "s16", "--rate", "48000", "--channels", "1",
            "-P", "{ node.name = \(app) application.name = \(name ?? app) }", file.path,
        ])
        defer { recorder.terminate() }
        let bytesPerSecond = 48_000 * 2
        try waitUntil(timeout: .seconds(15), "\(app) recorded a second; pw-cat: \(recorder.errorOutput); log:\n\(sandbox.log.suffix(1500))") {
            ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0) >= bytesPerSecond
        }
        props(try sandbox.pipewire.dump().node(named: app)?.props.map { $0.filter { ["volume", "mute", "channelVolumes", "softVolumes", "softMute"].contains($0.key) } })
        recorder.terminate()
        let data = try Data(contentsOf: file)
        // 16-bit PCM after the "data" chunk header.
        let marker = try #require(data.firstRange(of: Data("data".utf8)), "\(file.path) is not a WAV file")
        let body = data[(marker.upperBound + 4)...]
        let samples = body.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        return Array(samples.suffix(samples.count / 2))
    }
}
