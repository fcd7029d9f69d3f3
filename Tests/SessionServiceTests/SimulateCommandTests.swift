import Foundation
import PipeWireSandbox
import Testing

@testable import AudioSessionControl

/// `audiosessionctl simulate` end to end: the Swift example player and the Python VoIP example,
/// each run on the simulated desktop from a script; what the app's session receives and what
/// the app does are on the timeline; nothing the simulator started outlives it.
@Suite("audiosessionctl simulate", .serialized)
struct SimulateCommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs the simulator with `script` and returns its output once it exited by itself.
    private func simulate(script: String, app: [String], options: [String] = []) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("simulate-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scriptFile = directory.appendingPathComponent("script.txt")
        try script.write(to: scriptFile, atomically: true, encoding: .utf8)
        let simulator = try ManagedProcess(
            ServiceSandbox.binary("audiosessionctl"), ["simulate", "--script", scriptFile.path] + options + ["--"] + app,
            environment: ProcessInfo.processInfo.environment, logDirectory: directory)
        defer { simulator.terminate() }
        let status = try simulator.waitForExit(timeout: .seconds(60))
        let output = simulator.output
        #expect(status == 0, "\(output)\n\(simulator.errorOutput)")
        #expect(output.contains("simulation done"), "\(output)")
        #expect(Self.processes(of: simulator.pid).isEmpty, "every process it started is stopped: \(Self.processes(of: simulator.pid))")
        #expect(Self.sandboxDirectories(of: simulator.pid).isEmpty, "its files are gone: \(Self.sandboxDirectories(of: simulator.pid))")
        return output
    }

    /// The temporary directories of the sandboxes the simulator `pid` made.
    static func sandboxDirectories(of pid: Int32) -> [String] {
        let temporary = FileManager.default.temporaryDirectory
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        return entries.filter { $0.hasPrefix("audiosession-pw-\(pid)-") }.map { temporary.appendingPathComponent($0).path }
    }

    @Test func sigtermStopsEverythingAndRemovesItsFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("simulate-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scriptFile = directory.appendingPathComponent("script.txt")
        try "wait 60\n".write(to: scriptFile, atomically: true, encoding: .utf8)
        let simulator = try ManagedProcess(
            ServiceSandbox.binary("audiosessionctl"), ["simulate", "--script", scriptFile.path, "--", "/bin/sleep", "600"],
            environment: ProcessInfo.processInfo.environment, logDirectory: directory)
        defer { simulator.terminate() }
        try waitUntil(timeout: .seconds(20), "the app runs on the simulated desktop:\n\(simulator.output)") {
            simulator.output.contains("$ /bin/sleep 600")
        }
        #expect(!Self.sandboxDirectories(of: simulator.pid).isEmpty)
        kill(simulator.pid, SIGTERM)
        _ = try simulator.waitForExit(timeout: .seconds(15))
        #expect(simulator.output.contains("simulation stopped"), "\(simulator.output)")
        #expect(Self.processes(of: simulator.pid).isEmpty, "every process it started is stopped: \(Self.processes(of: simulator.pid))")
        #expect(Self.sandboxDirectories(of: simulator.pid).isEmpty, "its files are gone: \(Self.sandboxDirectories(of: simulator.pid))")
    }

    /// Processes still running in a sandbox the simulator `pid` made (its runtime dirs are
    /// named after it).
    static func processes(of pid: Int32) -> [String] {
        let marker = "audiosession-pw-\(pid)-"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> String? in
            guard Int32(entry) != nil, let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ"),
                String(decoding: environment, as: UTF8.self).contains(marker)
            else { return nil }
            let command = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline").map { String(decoding: $0, as: UTF8.self) }
            return "\(entry) \(command?.replacingOccurrences(of: "\0", with: " ") ?? "")"
        }
    }

    /// Lines of the timeline by who said them, without the elapsed time.
    private func lines(_ output: String, _ actor: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard fields.count == 3, fields[0].hasSuffix("s"), fields[1] == actor else { return nil }
            return fields[2].trimmingCharacters(in: .whitespaces)
        }
    }

    @Test func theSwiftPlayerIsInterruptedByACallAndPausedByTheHeadphones() throws {
        let tone = try TestTone.write(to: FileManager.default.temporaryDirectory.appendingPathComponent("simulate-\(UUID().uuidString.prefix(8)).wav"), seconds: 60)
        defer { try? FileManager.default.removeItem(at: tone) }
        let output = try simulate(
            script: """
                # the player plays; a call comes and goes; the headset comes and goes
                call start
                call end
                headphones in
                headphones out
                status
                """,
            app: [ServiceSandbox.binary("audiosession-example-player"), tone.path], options: ["--devices", "hdmi"])
        #expect(lines(output, "user").first == "a TV is connected over HDMI", "\(output)")
        #expect(output.contains("route: out builtInSpeaker:card-output:analog-output-speaker"), "the TV never takes over by itself: \(output)")
        let signals = lines(output, "signal")
        let app = lines(output, "app")
        #expect(signals.contains { $0.hasSuffix("← Interruption began, reason default (held by sessionAPI if it does not stop)") }, "\(output)")
        #expect(signals.contains { $0.hasSuffix("← Interruption ended, shouldResume") }, "\(output)")
        #expect(signals.contains { $0.contains("← RouteChange, reason newDeviceAvailable") }, "\(output)")
        #expect(signals.contains { $0.contains("← RouteChange, reason oldDeviceUnavailable") }, "\(output)")
        #expect(signals.contains { $0.hasSuffix("← Interruption began, reason routeDisconnected (held by sessionAPI if it does not stop)") })
        // The app's own reactions, in order.
        let reactions = app.filter { $0.hasPrefix("│ interruption") || $0 == "│ paused" || $0 == "│ resumed" }
        #expect(reactions == [
            "│ interruption began (default)", "│ paused", "│ interruption ended shouldResume", "│ resumed",
            "│ interruption began (routeDisconnected)", "│ paused",
        ], "\(output)")
        #expect(output.contains("now playing: 1 "), "status shows the player as the current media player")
    }

    @Test func thePythonCallSetsItsMicrophoneAndHearsTheOtherCall() throws {
        let script = Self.repository.appendingPathComponent("contrib/examples/python/voip_call.py").path
        let output = try simulate(
            script: """
                call start
                call end
                headphones in
                services reset
                """,
            app: ["/usr/bin/python3", script, "--mic-gain", "0.5"])
        let signals = lines(output, "signal")
        let app = lines(output, "app")
        #expect(app.contains("│ microphone sources: Internal Microphone"), "\(output)")
        #expect(app.contains("│ microphone gain 0.50"), "\(output)")
        #expect(signals.contains { $0.hasSuffix("← InputGain 0.50") }, "\(output)")
        #expect(signals.contains { $0.hasSuffix("← SilenceSecondaryAudioHint begin") }, "another app's call")
        #expect(signals.contains { $0.hasSuffix("← SilenceSecondaryAudioHint end") })
        #expect(app.contains("│ route changed (reason 1)"), "the headset")
        #expect(lines(output, "daemon").contains("media services lost (PipeWire is gone)"))
        #expect(lines(output, "daemon").contains("media services reset (PipeWire is back)"))
        #expect(!app.contains { $0.contains("Traceback") }, "\(output)")
    }

    @Test func commandsAreParsedAndMistakesExplained() throws {
        #expect(try SimulatorAction.parse("call start") == .call(true))
        #expect(try SimulatorAction.parse("  Headphones OUT  # pulled") == .headphones(false))
        #expect(try SimulatorAction.parse("wait 1.5") == .wait(.milliseconds(1500)))
        #expect(try SimulatorAction.parse("# a comment") == nil)
        #expect(try SimulatorAction.parse("") == nil)
        #expect(throws: SimulatorError.self) { try SimulatorAction.parse("call maybe") }
        #expect(throws: SimulatorError.self) { try SimulatorAction.parse("dance") }
        #expect(SimulatorAction.helpText.contains("headphones in | headphones out"))
        #expect(throws: (any Error).self) { try SimulateCommand.parseAsRoot(["simulate", "--devices", "usb-dac,bogus", "--", "true"]) }
        #expect(throws: (any Error).self) { try SimulateCommand.parseAsRoot(["simulate"]) }
    }
}
