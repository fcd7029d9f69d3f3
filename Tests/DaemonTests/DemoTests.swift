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
        // Issue 6 changed the story: a sound card with a headphone jack, route changes with their
        // reasons and previous routes, and the music pausing when the headphones are pulled.
        for line in [
            "audiosessiond attached", "music → card-output (Speakers route)", "plugs in the headphones",
            "route change for music: newDeviceAvailable (1); previous route in[] out[Speaker:card-output:analog-output-speaker]",
            "game → hdmi-tv (its own target is honoured", "music → usb-dac (last in wins)",
            "route change for music: override (4); previous route in[] out[USBAudio:usb-dac]",
            "unplugs the headphones",
            "route change for music: oldDeviceUnavailable (2); previous route in[] out[Headphones:card-output:analog-output-headphones]",
            "paused: its output went away", "music paused: unlinked", "exited with status 0", "demo done",
        ] {
            #expect(output.contains(line), "timeline lacks '\(line)':\n\(output)")
        }
        // Every process the demo started ran with its private runtime dir: none may remain.
        let runtime = try #require(output.firstMatch(of: /in (\/\S+\/runtime)/)?.1)
        #expect(processes(withEnvironmentContaining: String(runtime)).isEmpty)
    }

    private func processes(withEnvironmentContaining text: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return String(decoding: environ, as: UTF8.self).contains(text)
        }
    }
}
