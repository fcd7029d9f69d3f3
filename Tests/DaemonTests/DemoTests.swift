import Foundation
import PipeWireSandbox
import Testing

/// `make demo` is the newcomer's first run: it must tell its story and leave nothing behind.
@Suite("audiosessionctl demo")
struct DemoTests {
    @Test func demoPrintsItsTimelineExitsZeroAndLeavesNoProcessBehind() throws {
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("demo-test-\(getpid())")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        var environment = ProcessInfo.processInfo.environment
        for key in ["PIPEWIRE_REMOTE", "PULSE_SERVER", "DBUS_SESSION_BUS_ADDRESS"] { environment[key] = nil }
        let demo = try ManagedProcess(
            DaemonProcess.path(of: "audiosessionctl"), ["demo"], environment: environment, logDirectory: logs)
        let status = try demo.waitForExit(timeout: .seconds(60))
        let output = demo.output
        #expect(status == 0, "demo failed: \(output)\n\(demo.errorOutput)")
        // Act 1: a sound card with a headphone jack, route changes with their reasons
        // and previous routes, and the music pausing when the headphones are pulled.
        for line in [
            "Act 1 — routes", "audiosessiond attached", "music → card-output (Speakers route)", "plugs in the headphones",
            "route change for music: newDeviceAvailable (1); previous route in[] out[Speaker:card-output:analog-output-speaker]",
            "game → hdmi-tv (its own target is honoured", "music → usb-dac (last in wins)",
            "route change for music: override (4); previous route in[] out[USBAudio:usb-dac]",
            "unplugs the headphones",
            "route change for music: oldDeviceUnavailable (2); previous route in[] out[Headphones:card-output:analog-output-headphones]",
            "paused: its output went away", "music paused: unlinked", "exited with status 0", "demo done",
            // Act 2: enforcement with real clients, each seen by the demo's own observers.
            "Act 2 — enforcement", "watches MPRIS players on the private bus", "playerctl: Playing",
            "music ducked: volume 1.00 → 0.30 ", "music back: volume 0.30 → 1.00 ",
            "playerctl: mpv Paused", "playerctl: mpv Playing again", "shouldResume",
            "game → headphones; it mixes: music volume 1.00, mpv still Playing, game volume 1.00",
            "audiosessionctl silent on", "game volume 0.00", "music untouched at 1.00", "game volume back to 1.00",
            "settings: clock.force-quantum = 512, clock.force-rate = 96000", "run exits with status 0",
            "settings: clock.force-quantum = 0, clock.force-rate = 0",
            // Act 3: the same policy on a pure PulseAudio 16.
            "Act 3 — the same policy on a pure PulseAudio 16", "unloaded module-role-cork while it runs",
            "music ducked to 54 % = 0.3 × the user's volume", "music back at exactly 80 %",
            "music → audiosession.hold", "music → speakers (", "audiosessionctl status → audio server: PulseAudio",
            "game volume 0 %", "the music untouched at 80 %", "game volume back to 100 %",
            "Voice Memo's recording volume 0 %", "it records silence, and keeps running", "Voice Memo's recording volume back to 100 %",
            "route change says override (4), and the music plays on",
            "unplugs the headphones", "music → speakers: released as the daemon exits",
            "module-role-cork loaded again, audiosession.hold gone, the stream-restore records of the music, the game and the recorder as they were",
        ] {
            #expect(output.contains(line), "timeline lacks '\(line)':\n\(output)")
        }
        // The acts come in order, each line of act 2 after its cause.
        let order = ["Act 1", "Act 2", "music ducked", "music back", "mpv Paused", "mpv Playing again", "it mixes: music volume",
                     "game volume 0.00", "game volume back", "force-rate = 96000", "force-rate = 0", "Act 3", "music ducked to",
                     "music back at exactly", "music → audiosession.hold", "game volume 0 %", "game volume back to 100 %",
                     "recording volume 0 %", "recording volume back", "route change says override (4)", "unplugs the headphones (their sink goes away)",
                     "released as the daemon exits", "module-role-cork loaded again", "demo done"]
        let positions = order.compactMap { output.range(of: $0)?.lowerBound }
        #expect(positions.count == order.count && positions == positions.sorted(), "out of order:\n\(output)")
        // A duck is a ramp, not a jump: steps between the levels were seen, over about the shipped 250 ms.
        let ramp = try #require(output.firstMatch(of: /1\.00 → 0\.30 in (\d+) steps over ([\d.]+) ms/))
        #expect(Int(ramp.1)! >= 3, "\(ramp.0)")
        #expect(Double(ramp.2)! > 100, "\(ramp.0)")
        // Every process the demo started ran with one of its private runtime dirs: none may remain.
        let runtimes = output.matches(of: /in (\/\S+\/runtime)/).map { String($0.1) }
        #expect(runtimes.count == 3, "one private server per act:\n\(output)")
        for runtime in runtimes {
            #expect(processes(withEnvironmentContaining: runtime).isEmpty, "left running with \(runtime)")
        }
    }

    @Test func aMissingToolIsOneClearLineAndAFailure() throws {
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("demo-test-tools-\(getpid())")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        // A PATH with PipeWire's tools but no mpv or playerctl.
        let bin = logs.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for tool in ["pipewire", "pipewire-pulse", "pw-cat", "pw-cli", "pw-metadata", "pw-dump", "dbus-daemon"] {
            let found = ["/usr/bin", "/bin"].map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent(tool).path, withDestinationPath: found ?? "/bin/false")
        }
        let demo = try ManagedProcess(
            DaemonProcess.path(of: "audiosessionctl"), ["demo"], environment: ["PATH": bin.path, "HOME": logs.path],
            logDirectory: logs)
        let status = try demo.waitForExit(timeout: .seconds(30))
        #expect(status != 0)
        let message = demo.errorOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(message.contains("the demo needs mpv, playerctl"), "\(message)")
        #expect(message.split(separator: "\n").count == 1, "one line: \(message)")
        #expect(!demo.output.contains("Act 1"), "nothing started: \(demo.output)")
    }

    private func processes(withEnvironmentContaining text: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return String(decoding: environ, as: UTF8.self).contains(text)
        }
    }
}
