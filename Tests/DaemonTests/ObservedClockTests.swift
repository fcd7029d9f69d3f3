import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// AVAudioSession's `sampleRate` and `ioBufferDuration` are what the hardware runs at, not what
/// was asked for. On a real PipeWire: a session reads the quantum a low-latency stream makes the
/// graph run at, then the quantum another client forces in the `settings` metadata (nothing the
/// daemon chose), and the policy's values again once nothing runs. `audiosessionctl status`
/// says the same.
@Suite("Session1: hardware values are the running graph's", .serialized)
struct ObservedClockTests {
    static let service = "org.audiosession.Manager1"
    static let sessionInterface = "org.audiosession.Session1"
    static let managerPath = "/org/audiosession/Manager1"

    @Test func sessionsReadTheQuantumTheGraphRunsAtAndThePolicysWhileNothingRuns() async throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let daemon = try DaemonProcess(in: sandbox, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        try daemon.waitUntilReady()
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        let reader = try sandbox.spawn(
            DaemonProcess.path(of: "audiosessionctl"), ["run", "--category", "playback", "--app", "reader", "--", "sleep", "600"],
            extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        defer { reader.terminate() }
        var path = ""
        try await waitUntil(timeout: .seconds(10), "the reader's session exists\n\(daemon.log)") { () async throws -> Bool in
            let sessions = try await connection.property(
                "Sessions", of: Self.service, at: Self.managerPath, on: Self.service, timeout: .seconds(5))
            path = sessions.arrayValue?.first?.stringValue ?? ""
            return !path.isEmpty
        }
        func property(_ name: String, at objectPath: String, of interface: String) async throws -> BusValue {
            try await connection.property(name, of: interface, at: objectPath, on: Self.service, timeout: .seconds(5))
        }
        /// Waits until the session and the manager both read `frames` at `rate`, the manager
        /// saying whether a running clock was seen.
        func eventually(_ frames: Int, at rate: Int = 48_000, running: Bool, _ why: String) async throws {
            let duration = BusValue.double(Double(frames) / Double(rate))
            var seen: [BusValue] = []
            try await waitUntil(timeout: .seconds(10), "\(why): \(frames) frames at \(rate) Hz, running \(running) (now \(seen))\n\(daemon.log.suffix(3000))") {
                () async throws -> Bool in
                seen = [
                    try await property("IOBufferDuration", at: path, of: Self.sessionInterface),
                    try await property("OutputLatency", at: path, of: Self.sessionInterface),
                    try await property("SampleRate", at: path, of: Self.sessionInterface),
                    try await property("IOBufferDuration", at: Self.managerPath, of: Self.service),
                    try await property("ClockRunning", at: Self.managerPath, of: Self.service),
                ]
                return seen == [duration, duration, .double(Double(rate)), duration, .bool(running)]
            }
        }
        func status() throws -> [String: Any] {
            let output = try ManagedProcess.run(
                DaemonProcess.path(of: "audiosessionctl"), ["status", "--json"],
                environment: sandbox.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 },
                logDirectory: sandbox.logDirectory)
            let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            return object?["hardware"] as? [String: Any] ?? [:]
        }

        // Nothing runs: the policy's defaults (the shipped rules: 1024 frames at 48 kHz).
        try await eventually(1024, running: false, "nothing runs")
        #expect(try status()["running"] as? Bool == false)

        // A low-latency stream (256 frames): the graph runs at its quantum, and the session is
        // told so by PropertiesChanged.
        let changes = try await connection.signals(path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        let signalled = Task { () -> Bool in
            for await signal in changes where signal.arguments.count == 3
                && signal.arguments[1].dictionaryValue?["IOBufferDuration"] == .double(256.0 / 48_000) { return true }
            return false
        }
        let tone = try sandbox.testTone()
        let stream = try sandbox.play(role: "Music", file: tone, extraArguments: ["--latency", "256", "-P", "{ node.name = music }"])
        defer { stream.terminate() }
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        try await eventually(256, running: true, "a stream asks for 256 frames")
        let timeout = Task { try await Task.sleep(for: TestTime.scaled(.seconds(5))); signalled.cancel() }
        #expect(await signalled.value, "PropertiesChanged carries the new IOBufferDuration")
        timeout.cancel()
        let hardware = try status()
        #expect(hardware["running"] as? Bool == true && hardware["quantum"] as? Int == 256, "status: \(hardware)")
        let table = try ManagedProcess.run(
            DaemonProcess.path(of: "audiosessionctl"), ["status"],
            environment: sandbox.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 },
            logDirectory: sandbox.logDirectory)
        #expect(table.contains("hardware: 48000 Hz, 256 frames (5.3 ms): the graph runs at this now"), "\(table)")

        // Another client forces 512 frames: not the daemon's choice, what the graph runs at.
        _ = try sandbox.run("pw-metadata", ["-n", "settings", "0", "clock.force-quantum", "512"])
        try await eventually(512, running: true, "another client forces 512 frames")
        _ = try sandbox.run("pw-metadata", ["-n", "settings", "0", "clock.force-quantum", "0"])
        try await eventually(256, running: true, "the forced quantum is cleared")
        // ... and 96 kHz: the stream's 256 frames at 48 kHz are 512 there. (Cleared, the rate
        // stays while the graph runs on 0.3.65: whatever it is, the session reads it.)
        _ = try sandbox.run("pw-metadata", ["-n", "settings", "0", "clock.force-rate", "96000"])
        try await eventually(512, at: 96_000, running: true, "another client forces 96 kHz")
        _ = try sandbox.run("pw-metadata", ["-n", "settings", "0", "clock.force-rate", "0"])

        // The stream ends: nothing runs, the policy's values are back.
        stream.terminate()
        try await eventually(1024, running: false, "the stream ended")
        #expect(try daemon.terminate() == 0)
    }
}
