import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// Signals reach explicit sessions, and their clients (the Swift library's example player and a
/// Python client) behave on them, with real streams on a private PipeWire.
@Suite("Session API signals and clients", .serialized)
struct InterruptionTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The session is held by `audiosessionctl run` (another process): streams of this test
    /// runner would otherwise join a session it owned, by ancestry.
    @Test func aCallInterruptsAnExplicitSessionAndEndsWithShouldResume() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let tone = try sandbox.pipewire.testTone()
        let client = try sandbox.connect()
        let run = try sandbox.spawnCtl(["run", "--category", "playback", "--", "pw-cat", "-p", "-P", "{ node.name = music }", tone.path])
        try sandbox.pipewire.waitUntilLinked("music", to: ["headphones"])
        let listing = try #require(try await listSessions(client).first { $0["label"] == .string("pw-cat") })
        let path = try #require(listing["path"]?.stringValue)
        let session = SessionClient(connection: client, path: path)
        let signals = SignalRecorder(try await client.signals(path: path, interface: ServiceSandbox.sessionInterface))
        #expect(try await session.property("Active") == .bool(true))

        let call = try sandbox.pipewire.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
        let began = try await signals.waitFor("Interruption began") { $0.member == "Interruption" && $0.arguments.first == .uint32(1) }
        #expect(began.arguments == [.uint32(1), .uint32(0), .uint32(0)], "began, reason default")
        #expect(try await session.property("Active") == .bool(false), "an interruption is a deactivation")
        #expect(try await session.property("Interrupted") == .bool(true))
        #expect(try await session.property("OtherAudioPlaying") == .bool(true))
        // `run` does not stop its command's audio itself: after the grace the daemon holds it.
        try sandbox.pipewire.waitUntilLinked("music", to: [])

        call.terminate()
        let ended = try await signals.waitFor("Interruption ended") { $0.member == "Interruption" && $0.arguments.first == .uint32(0) }
        #expect(ended.arguments == [.uint32(0), .uint32(0), .uint32(1)], "ended with shouldResume")
        try sandbox.pipewire.waitUntilLinked("music", to: ["headphones"])
        run.terminate()
    }

    @Test func theSwiftExamplePlayerPausesAndResumes() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let tone = try sandbox.pipewire.testTone()
        let player = try sandbox.pipewire.spawn(
            ServiceSandbox.binary("audiosession-example-player"), [tone.path], extraEnvironment: sandbox.bus.environment)
        func waitForOutput(_ text: String) throws {
            try waitUntil(timeout: .seconds(15), "the player prints '\(text)'; so far:\n\(player.output)\n\(player.errorOutput)") {
                player.output.contains(text)
            }
        }
        try waitForOutput("playing")
        try waitForOutput("session 1 active: playback")
        let call = try sandbox.pipewire.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
        try waitForOutput("interruption began (default)")
        try waitForOutput("paused")
        call.terminate()
        try waitForOutput("interruption ended shouldResume")
        try waitForOutput("resumed")
        #expect(player.output.components(separatedBy: "playing ").count - 1 == 2, "played, then played again")
        player.terminate()
    }

    /// The "done when": a Python client written from docs/dbus-api.md interrupts music
    /// with a voiceChat call and lets it resume — under the shipped (desktop) rules, where a
    /// voiceChat session is in the communication class (policy-rules/35-explicit.conf).
    @Test func thePythonClientInterruptsMusicAndLetsItResume() async throws {
        // A microphone in use (PipeWire 1.4 mutes a running null source only), as in a real call.
        var devices = VirtualDevice.standard
        devices[2].alwaysProcess = true
        let sandbox = try ServiceSandbox(devices: devices)
        defer { sandbox.stop() }
        let tone = try sandbox.pipewire.testTone()
        try sandbox.pipewire.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.pipewire.waitUntilLinked("music", to: ["headphones"])
        let script = Self.repository.appendingPathComponent("contrib/examples/python/voip_call.py").path
        let call = try sandbox.pipewire.spawn("/usr/bin/python3", [script, "--mic-gain", "0.5"], extraEnvironment: sandbox.bus.environment)
        try waitUntil(timeout: .seconds(15), "the call starts; so far:\n\(call.output)\(call.errorOutput)") {
            call.output.contains("in call on /org/audiosession/Session/")
        }
        #expect(call.output.contains("category playAndRecord, mode voiceChat"))
        #expect(call.output.contains("speaker volume 1.00"))
        try sandbox.pipewire.waitUntilLinked("music", to: [])  // interrupted: unlinked and held
        // The call's microphone gain: the mic's volume for the call (0.5 on its slider, 0.125 linear).
        try waitUntil(timeout: .seconds(10), "the gain is printed; so far:\n\(call.output)") { call.output.contains("microphone gain 0.50") }
        #expect(try sandbox.pipewire.dump().node(named: "mic")?.channelVolumes == [0.125])

        // The user mutes the microphone: the call is on hold until it is back, then resumes.
        let mic = try #require(try sandbox.pipewire.dump().node(named: "mic")?.id)
        _ = try sandbox.pipewire.run("pw-cli", ["set-param", String(mic), "Props", "{ mute: true }"])
        try waitUntil(timeout: .seconds(10), "the call is on hold; so far:\n\(call.output)\(call.errorOutput)\ndaemon:\n\(sandbox.log.suffix(3000))") {
            call.output.contains("interruption began (reason builtInMicMuted)\nmicrophone muted: the call is on hold")
        }
        _ = try sandbox.pipewire.run("pw-cli", ["set-param", String(mic), "Props", "{ mute: false }"])
        try waitUntil(timeout: .seconds(10), "the call resumes; so far:\n\(call.output)\(call.errorOutput)") {
            call.output.contains("interruption ended shouldResume\ncall resumed")
        }
        // The user turns the speaker down: the call hears it.
        let headphones = try #require(try sandbox.pipewire.dump().node(named: "headphones")?.id)
        _ = try sandbox.pipewire.run("pw-cli", ["set-param", String(headphones), "Props", "{ channelVolumes: [ 0.125, 0.125 ] }"])
        try waitUntil(timeout: .seconds(10), "the volume change is printed; so far:\n\(call.output)") { call.output.contains("speaker volume 0.50") }
        #expect(!call.output.contains("Traceback"), "\(call.errorOutput)")
        try sandbox.pipewire.waitUntilLinked("music", to: [])  // still in the call
        call.terminate()
        #expect(call.output.contains("call ended; others notified"), "\(call.output)\(call.errorOutput)")
        try sandbox.pipewire.waitUntilLinked("music", to: ["headphones"])  // resumed
        try waitUntil(timeout: .seconds(5), "the microphone's own volume is back") {
            try sandbox.pipewire.dump().node(named: "mic")?.channelVolumes == [1]
        }
    }

    /// The navigation example asks `PromptStyle` before it speaks (espeak-ng, pw-play in its
    /// session): the whole instruction when nothing else goes on, nothing while another app
    /// records; during a call the style is `short`, and the shipped rules refuse the activation.
    @Test func theNavigationExampleFollowsThePromptStyle() throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let script = Self.repository.appendingPathComponent("contrib/examples/python/navigation_prompt.py").path
        func prompt() throws -> String {
            let run = try sandbox.pipewire.spawn(
                "/usr/bin/python3", [script, "In 300 metres, turn left"], extraEnvironment: sandbox.bus.environment)
            let status = try run.waitForExit(timeout: .seconds(30))
            #expect(status == 0, "\(run.output)\(run.errorOutput)")
            return run.output
        }
        let alone = try prompt()
        #expect(alone.contains("prompt style normal\nspeaking: In 300 metres, turn left\ndone; others notified"), "\(alone)")

        let tone = try sandbox.pipewire.testTone()
        let call = try sandbox.pipewire.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
        try sandbox.pipewire.waitUntilLinked("call", to: ["headphones"])
        let inCall = try prompt()
        #expect(inCall.contains("prompt style short\nprompt refused: a call holds the audio"), "the shipped rules: a call interrupts navigation; \(inCall)")
        call.terminate()

        let recording = sandbox.pipewire.directory.appendingPathComponent("memo.wav")
        let recorder = try sandbox.pipewire.spawn("pw-record", ["-P", "{ node.name = memo }", recording.path])
        defer { recorder.terminate() }
        try sandbox.pipewire.waitUntilLinked("memo", to: ["mic"])
        let whileRecording = try prompt()
        #expect(whileRecording.contains("prompt style none\nprompt skipped: someone is recording"), "\(whileRecording)")
        #expect(!whileRecording.contains("speaking"))
    }

    @Test func theShellTourRuns() throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let tone = try sandbox.pipewire.testTone()
        let script = Self.repository.appendingPathComponent("contrib/examples/shell/session-tour.sh").path
        let binaries = URL(fileURLWithPath: ServiceSandbox.binary("audiosessionctl")).deletingLastPathComponent().path
        let tour = try sandbox.pipewire.spawn(
            "/bin/sh", [script, tone.path],
            extraEnvironment: sandbox.bus.environment + ["PATH": binaries + ":" + (sandbox.pipewire.environment["PATH"] ?? "/usr/bin:/bin")])
        let status = try tour.waitForExit(timeout: .seconds(30))
        #expect(status == 0, "\(tour.output)\n\(tour.errorOutput)")
        #expect(tour.output.contains("session: /org/audiosession/Session/1"))
        #expect(tour.output.contains("\"category\":{\"type\":\"v\",\"data\":{\"type\":\"s\",\"data\":\"playback\"}}")
                || tour.output.contains("playback"), "ListSessions shows the playback session")
        #expect(tour.errorOutput.contains("belongs to another connection"), "\(tour.errorOutput)")
        #expect(tour.output.contains("s \"denied\""))
    }

    @Test func monitorPrintsDecisionsAsJSONLines() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let monitor = try sandbox.spawnCtl(["monitor", "--json"])
        let client = try sandbox.connect()
        try await waitUntil(timeout: .seconds(10), "monitor subscribed") { () async throws -> Bool in
            let session = try await SessionClient.create(on: client, app: "probe")
            try await session.setActive(true)
            try await session.call("Close")
            return monitor.output.contains("\"kind\":\"activated\"")
        }
        #expect(monitor.output.split(separator: "\n").first?.contains("\"signal\":\"Watching\"") == true, "it says first that it watches")
        let line = try #require(monitor.output.split(separator: "\n").first { $0.contains("\"kind\":\"activated\"") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["signal"] as? String == "Decision")
        #expect((object["session"] as? Int ?? 0) > 0)
        monitor.terminate()
    }
}
