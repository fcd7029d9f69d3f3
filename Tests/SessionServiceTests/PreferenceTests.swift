import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// An explicit session's preferences on a real PipeWire, set through `audiosessionctl run`
/// (another process: the other apps here are this runner's children, and would join a session
/// it owned by ancestry).
@Suite("Session preferences: system alerts, route disconnect, sounds while recording", .serialized)
struct PreferenceTests {
    private func volume(of name: String, in sandbox: ServiceSandbox) throws -> Double? {
        try sandbox.pipewire.dump().node(named: name)?.duckedVolume
    }

    private func session(of app: String, _ client: BusConnection) async throws -> SessionClient {
        var path = ""
        try await waitUntil(timeout: .seconds(10), "\(app) has an active session") { () async throws -> Bool in
            let listing = try await listSessions(client).first { $0["label"] == .string(app) && $0["activity"] == .string("active") }
            path = listing?["path"]?.stringValue ?? ""
            return !path.isEmpty
        }
        return SessionClient(connection: client, path: path)
    }

    @Test func aSessionThatPrefersNoSystemAlertsIsNotDuckedByANotification() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let tone = try sandbox.pipewire.testTone()
        let recital = try sandbox.spawnCtl([
            "run", "--category", "playback", "--options", "mixWithOthers", "--prefers-no-interruptions-from-system-alerts", "--",
            "pw-cat", "-p", "-P", "{ node.name = recital }", tone.path,
        ])
        defer { recital.terminate() }
        let music = try sandbox.pipewire.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        defer { music.terminate() }
        try sandbox.pipewire.waitUntilLinked("recital", to: ["headphones"])
        try sandbox.pipewire.waitUntilLinked("music", to: ["headphones"])
        let client = try sandbox.connect()
        #expect(try await session(of: "pw-cat", client).property("PrefersNoInterruptionsFromSystemAlerts") == .bool(true))

        let chime = try sandbox.pipewire.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime }"])
        try waitUntil(timeout: .seconds(5), "the music is ducked (now \(String(describing: try? volume(of: "music", in: sandbox))))") {
            try volume(of: "music", in: sandbox) == 0.3
        }
        #expect(try volume(of: "recital", in: sandbox) == 1, "the session that asked is spared the same ramp")
        chime.terminate()
        try waitUntil(timeout: .seconds(5), "the music is back") { try volume(of: "music", in: sandbox) == 1 }
        #expect(try volume(of: "recital", in: sandbox) == 1)
    }

    @Test func theCurrentPlayerIsInterruptedAndHeldWhenItsHeadphonesGo() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let tone = try sandbox.pipewire.testTone()
        let client = try sandbox.connect()
        let podcast = try sandbox.spawnCtl(["run", "--category", "playback", "--", "pw-cat", "-p", "-P", "{ node.name = podcast }", tone.path])
        defer { podcast.terminate() }
        try sandbox.pipewire.waitUntilLinked("podcast", to: ["headphones"])
        let session = try await session(of: "pw-cat", client)
        #expect(try await session.property("IsNowPlaying") == .bool(true))
        #expect(try await session.property("PrefersInterruptionOnRouteDisconnect") == .bool(true), "iOS 17's default")
        let signals = SignalRecorder(try await client.signals(path: session.path, interface: ServiceSandbox.sessionInterface))

        try sandbox.pipewire.destroyNode(named: "headphones")
        let began = try await signals.waitFor("Interruption began") { $0.member == "Interruption" && $0.arguments.first == .uint32(1) }
        #expect(began.arguments == [.uint32(1), .uint32(4), .uint32(0)], "began, reason routeDisconnected")
        let members = signals.signals.map(\.member)
        #expect(members.firstIndex(of: "RouteChange").map { $0 < members.firstIndex(of: "Interruption")! } == true,
                "the route change (oldDeviceUnavailable) comes first: \(members)")
        #expect(signals.signals.first { $0.member == "RouteChange" }?.arguments.first == .uint32(2))
        #expect(try await session.property("Active") == .bool(false), "an interruption is a deactivation")
        #expect(try sandbox.pipewire.linkedDevices(of: "podcast").isEmpty, "held: nothing leaks to the speaker")
    }

    @Test func aPlayerThatOptsOutOnlyHearsTheRouteChange() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let tone = try sandbox.pipewire.testTone()
        let client = try sandbox.connect()
        let podcast = try sandbox.spawnCtl([
            "run", "--category", "playback", "--no-interruption-on-route-disconnect", "--",
            "pw-cat", "-p", "-P", "{ node.name = podcast }", tone.path,
        ])
        defer { podcast.terminate() }
        try sandbox.pipewire.waitUntilLinked("podcast", to: ["headphones"])
        let session = try await session(of: "pw-cat", client)
        let signals = SignalRecorder(try await client.signals(path: session.path, interface: ServiceSandbox.sessionInterface))

        try sandbox.pipewire.destroyNode(named: "headphones")
        let change = try await signals.waitFor("RouteChange") { $0.member == "RouteChange" }
        #expect(change.arguments.first == .uint32(2), "oldDeviceUnavailable")
        // pw-cat does not pause itself: it plays on, on the speaker, and was never interrupted.
        try sandbox.pipewire.waitUntilLinked("podcast", to: ["speaker"])
        #expect(!signals.signals.contains { $0.member == "Interruption" })
        #expect(try await session.property("Active") == .bool(true))
    }

    @Test func aRecordingSilencesNotificationSoundsUnlessItAllowsThem() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let tone = try sandbox.pipewire.testTone()
        let client = try sandbox.connect()
        let recording = sandbox.pipewire.directory.appendingPathComponent("memo.wav").path
        let memo = try sandbox.spawnCtl(["run", "--category", "record", "--", "pw-cat", "-r", "-P", "{ node.name = memo }", recording])
        _ = try await session(of: "pw-cat", client)
        let chime = try sandbox.pipewire.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime }"])
        defer { chime.terminate() }
        try waitUntil(timeout: .seconds(5), "the notification is silenced while something records") {
            try volume(of: "chime", in: sandbox) == 0
        }
        memo.terminate()
        try waitUntil(timeout: .seconds(5), "the notification sounds again after the recording") {
            try volume(of: "chime", in: sandbox) == 1
        }

        let allowing = try sandbox.spawnCtl([
            "run", "--category", "record", "--allow-system-sounds-during-recording", "--", "pw-cat", "-r", "-P", "{ node.name = memo2 }", recording,
        ])
        defer { allowing.terminate() }
        let session = try await session(of: "pw-cat", client)
        #expect(try await session.property("AllowHapticsAndSystemSoundsDuringRecording") == .bool(true))
        let second = try sandbox.pipewire.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime2 }"])
        defer { second.terminate() }
        try sandbox.pipewire.waitUntilLinked("chime2", to: ["headphones"])
        // Both sound: the newer notification ducks the older (duckOthers, once its meter hears
        // it), and nothing silences either.
        try waitUntil(timeout: .seconds(5), "the first notification is ducked by the second, not silenced (volumes now \(String(describing: try? volume(of: "chime", in: sandbox))) and \(String(describing: try? volume(of: "chime2", in: sandbox)))); log:\n\(sandbox.log)") {
            try volume(of: "chime", in: sandbox).map { abs($0 - 0.3) < 0.01 } ?? false
        }
        #expect(try volume(of: "chime2", in: sandbox) == 1, "allowed")
        let silenced = try await listSessions(client).filter { $0["silenced"]?.boolValue == true }
        #expect(silenced.isEmpty, "nothing silenced: \(silenced)")
    }

    /// The user's mute key on the microphone a voice memo records from: `builtInMicMuted`, then
    /// `shouldResume` when it is back; a call that set `overrideMutedMicrophoneInterruption`
    /// stays active.
    @Test func mutingTheMicrophoneInterruptsTheRecorderUntilItIsBack() async throws {
        // PipeWire 1.4 mutes a running null source only; the recorder is held after its grace.
        var devices = VirtualDevice.standard
        devices[2].alwaysProcess = true
        let sandbox = try ServiceSandbox(devices: devices)
        defer { sandbox.stop() }
        let client = try sandbox.connect()
        let recording = sandbox.pipewire.directory.appendingPathComponent("memo.wav").path
        let memo = try sandbox.spawnCtl(["run", "--category", "record", "--", "pw-cat", "-r", "-P", "{ node.name = memo }", recording])
        defer { memo.terminate() }
        let session = try await session(of: "pw-cat", client)
        let signals = SignalRecorder(try await client.signals(path: session.path, interface: ServiceSandbox.sessionInterface))
        let mic = try #require(try sandbox.pipewire.dump().node(named: "mic")?.id)
        func setMute(_ muted: Bool) throws {
            _ = try sandbox.pipewire.run("pw-cli", ["set-param", String(mic), "Props", "{ mute: \(muted) }"])
        }

        try setMute(true)
        let began = try await signals.waitFor("Interruption began") { $0.member == "Interruption" && $0.arguments.first == .uint32(1) }
        #expect(began.arguments == [.uint32(1), .uint32(2), .uint32(0)], "began, reason builtInMicMuted")
        #expect(try await session.property("Active") == .bool(false))
        #expect(try await session.property("Interrupted") == .bool(true), "waiting for its microphone")
        let status = try sandbox.ctl(["status"])
        #expect(status.output.contains("interrupted (microphone muted)"), "\(status.output)")
        try setMute(false)
        let ended = try await signals.waitFor("Interruption ended") { $0.member == "Interruption" && $0.arguments.first == .uint32(0) }
        #expect(ended.arguments == [.uint32(0), .uint32(0), .uint32(1)], "ended with shouldResume")
        memo.terminate()

        let call = try sandbox.spawnCtl([
            "run", "--category", "playAndRecord", "--mode", "voiceChat", "--options", "overrideMutedMicrophoneInterruption", "--",
            "pw-cat", "-r", "-P", "{ node.name = call }", recording,
        ])
        defer { call.terminate() }
        let callSession = try await self.session(of: "pw-cat", client)
        let callSignals = SignalRecorder(try await client.signals(path: callSession.path, interface: ServiceSandbox.sessionInterface))
        try setMute(true)
        try await callSession.eventually("InputMuted", is: .bool(true))
        #expect(try await callSession.property("Active") == .bool(true), "it records silence, active")
        try setMute(false)
        try await callSession.eventually("InputMuted", is: .bool(false))
        #expect(!callSignals.signals.contains { $0.member == "Interruption" }, "it asked to record silence instead")
        #expect(try await callSession.property("Active") == .bool(true))
    }
}
