import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// `audiosessionctl run`: a command's streams join a session with the given category and its
/// hardware preferences reach PipeWire's `settings` metadata while it runs.
@Suite("audiosessionctl run", .serialized)
struct RunCommandTests {
    @Test func theCommandsStreamsGetTheCategory() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let tone = try sandbox.pipewire.testTone()
        let client = try sandbox.connect()
        let run = try sandbox.spawnCtl([
            "run", "--category", "playAndRecord", "--mode", "voiceChat", "--options", "defaultToSpeaker", "--",
            "pw-cat", "-p", "-P", "{ node.name = wrapped }", tone.path,
        ])
        var session: [String: BusValue] = [:]
        try await waitUntil(timeout: .seconds(10), "the wrapped stream is in an explicit session; log:\n\(sandbox.log.suffix(2000))") {
            () async throws -> Bool in
            session = try await listSessions(client).first { $0["label"] == .string("pw-cat") && $0["kind"] == .string("explicit") } ?? [:]
            return session["streams"]?.arrayValue?.count == 1
        }
        #expect(session["category"] == .string("playAndRecord"))
        #expect(session["mode"] == .string("voiceChat"))
        #expect(session["activity"] == .string("active"))
        let node = try #require(try sandbox.pipewire.dump().node(named: "wrapped"))
        #expect(node.property("audiosession.id") == session["id"]?.uint64Value.map(String.init), "PIPEWIRE_PROPS reached the stream")
        run.terminate()  // SIGTERM is forwarded to pw-cat; run exits with its status
        #expect(run.exitStatus != 0)
        try await waitUntil(timeout: .seconds(5), "the session is gone") { () async throws -> Bool in
            try await listSessions(client).contains { $0["label"] == .string("pw-cat") } == false
        }
    }

    @Test func aPulseClientJoinsThroughPULSE_PROP() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        try sandbox.pipewire.startPulse()
        let tone = try sandbox.pipewire.testTone()
        let client = try sandbox.connect()
        let run = try sandbox.spawnCtl(["run", "--category", "playback", "--app", "pulse-player", "--", "paplay", tone.path])
        var id: UInt64?
        try await waitUntil(timeout: .seconds(10), "the paplay stream is in the session; log:\n\(sandbox.log.suffix(2000))") {
            () async throws -> Bool in
            let session = try await listSessions(client).first { $0["label"] == .string("pulse-player") }
            id = session?["id"]?.uint64Value
            return session?["streams"]?.arrayValue?.count == 1
        }
        let stream = try #require(try sandbox.pipewire.dump().nodes.first { $0.mediaClass == "Stream/Output/Audio" })
        #expect(stream.property("audiosession.id") == id.map(String.init), "PULSE_PROP reached the stream")
        run.terminate()
    }

    @Test func preferredHardwareIsForcedWhileTheCommandRunsAndRestoredAfter() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let marker = sandbox.pipewire.directory.appendingPathComponent("release")
        let run = try sandbox.spawnCtl([
            "run", "--category", "playback", "--prefer-io-buffer", "0.005", "--prefer-rate", "96000", "--",
            "sh", "-c", "while [ ! -e '\(marker.path)' ]; do sleep 0.05; done; exit 3",
        ])
        try waitUntil(timeout: .seconds(10), "settings force 96 kHz, 512 frames; log:\n\(sandbox.log.suffix(2000))") {
            try sandbox.setting("clock.force-rate") == "96000" && sandbox.setting("clock.force-quantum") == "512"
        }
        _ = FileManager.default.createFile(atPath: marker.path, contents: Data())
        #expect(try run.waitForExit(timeout: .seconds(10)) == 3, "run exits with the command's status")
        try waitUntil(timeout: .seconds(5), "settings are back to 0") {
            try sandbox.setting("clock.force-rate") == "0" && sandbox.setting("clock.force-quantum") == "0"
        }
    }

    /// Enforcement through the CLI: silent mode silences an ambient app's stream and gives it back.
    @Test func silentModeSilencesAnAmbientStreamAndRestoresIt() throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let tone = try sandbox.pipewire.testTone()
        let run = try sandbox.spawnCtl(["run", "--category", "ambient", "--", "pw-cat", "-p", "-P", "{ node.name = clicks }", tone.path])
        try sandbox.pipewire.waitUntilLinked("clicks", to: ["headphones"])
        let volume = { try sandbox.pipewire.dump().node(named: "clicks")?.duckedVolume }
        #expect(try sandbox.ctl(["silent", "on"]).status == 0)
        try waitUntil(timeout: .seconds(5), "the ambient stream's gain is 0 (now \(String(describing: try? volume())))") { try volume() == 0 }
        #expect(try sandbox.ctl(["silent", "off"]).status == 0)
        try waitUntil(timeout: .seconds(5), "the ambient stream's gain is back (now \(String(describing: try? volume())))") { try volume() == 1 }
        run.terminate()
    }

    /// The command can be stopped like any other: SIGTERM sent to `run` alone reaches it (an app
    /// with no handler of its own dies of it), and Ctrl-C (SIGINT to the terminal's whole group)
    /// stops it once; `run` exits with the shell's 128 + signal.
    @Test func theCommandDiesOfTheSignalsItWouldDieOfAlone() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let client = try sandbox.connect()
        for (signal, target) in [(SIGTERM, "run alone"), (SIGINT, "the process group")] {
            let run = try sandbox.spawnCtl(["run", "--category", "playback", "--", "sleep", "600"])
            defer { run.terminate() }
            try await waitUntil(timeout: .seconds(10), "sleep is in a session") { () async throws -> Bool in
                try await listSessions(client).contains { $0["label"] == .string("sleep") }
            }
            // As a user would: once the command runs (run's child is sleep).
            let tasks = "/proc/\(run.pid)/task"
            try waitUntil(timeout: .seconds(5), "run has started sleep") {
                ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).contains { task in
                    (try? String(contentsOfFile: "\(tasks)/\(task)/children", encoding: .utf8))?.isEmpty == false
                }
            }
            kill(target == "run alone" ? run.pid : -run.pid, signal)
            #expect(try run.waitForExit(timeout: .seconds(5)) == 128 + signal, "\(target): \(signal)")
        }
    }

    @Test func aMissingCommandIsOneClearLine() throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let result = try sandbox.ctl(["run", "--category", "playback", "--", "no-such-command-here"])
        #expect(result.status != 0)
        #expect(result.error.contains("no-such-command-here: command not found"), "\(result.error)")
    }
}
