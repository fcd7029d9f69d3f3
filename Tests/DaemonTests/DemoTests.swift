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
        for line in [
            "audiosessiond attached", "music → headphones (follows the default)", "chime → speaker (its own target is honoured)",
            "unplugs the headphones", "music → speaker", "music → usb-dac", "exited with status 0", "demo done",
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
