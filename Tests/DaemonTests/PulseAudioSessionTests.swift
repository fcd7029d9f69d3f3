import Foundation
import PipeWireSandbox
import PulseAudioServer
import SessionBus
import Synchronization
import Testing

/// The daemon on a pure PulseAudio with its session bus: a call pauses a real MPRIS player
/// (mpv over pulse) and plays it again, silent mode silences a game and gives it back, a
/// denied app records silence, an explicit session's preferred input moves its recorder. Each
/// leaves the stream-restore records as they were.
@Suite("audiosessiond on PulseAudio, with its session bus", .serialized)
struct PulseAudioSessionTests {
    final class Rig {
        let pulse: PrivatePulseAudio
        let bus: PrivateSessionBus
        let watcher: PulseWatcher
        let daemon: DaemonProcess
        let tone: URL

        /// `setUp` prepares the server before the daemon starts.
        init(setUp: (PrivatePulseAudio) throws -> Void = { _ in }) throws {
            pulse = try PrivatePulseAudio()
            bus = try PrivateSessionBus()
            do {
                try setUp(pulse)
                let watcher = try PulseWatcher(pulse)
                self.watcher = watcher
                daemon = try DaemonProcess(in: pulse, arguments: ["--verbose"], environment: bus.environment)
                tone = try pulse.testTone()
                try daemon.waitUntilReady()
                try waitUntil(timeout: .seconds(10), "the daemon took over the server") {
                    watcher.snapshot.sinks.values.contains { $0.name == "audiosession.hold" }
                }
            } catch {
                pulse.stop()
                bus.stop()
                throw error
            }
        }

        /// `audiosessionctl` on the rig's bus; its standard output.
        @discardableResult
        func ctl(_ arguments: [String]) throws -> String {
            try ManagedProcess.run(
                DaemonProcess.path(of: "audiosessionctl"), arguments, environment: pulse.environment.merging(bus.environment) { $1 },
                logDirectory: pulse.logDirectory)
        }

        func stop() {
            pulse.stop()
            bus.stop()
        }
    }

    /// An explicit session owned by a test's connection to the rig's bus.
    struct ExplicitSession {
        static let service = "org.audiosession.Manager1"
        let connection: BusConnection
        let path: String
        var number: String { String(path.split(separator: "/").last ?? "") }

        static func create(_ app: String, on connection: BusConnection) async throws -> ExplicitSession {
            let created = try await connection.call(
                service, path: "/org/audiosession/Manager1", interface: service, member: "CreateSession", [.string(app)],
                timeout: .seconds(5))
            return ExplicitSession(connection: connection, path: try #require(created.first?.stringValue))
        }

        func call(_ member: String, _ arguments: [BusValue] = []) async throws {
            _ = try await connection.call(
                Self.service, path: path, interface: "org.audiosession.Session1", member: member, arguments, timeout: .seconds(5))
        }

        func property(_ name: String) async throws -> BusValue {
            try await connection.property(name, of: "org.audiosession.Session1", at: path, on: Self.service, timeout: .seconds(5))
        }
    }

    @Test func aCallPausesMpvOverMPRISAndPlaysItAgain() throws {
        let rig = try Rig()
        defer { rig.stop() }
        let plugin = MPRISInterruptionTests.mprisPlugin
        _ = try rig.pulse.spawn(
            "mpv", ["--no-config", "--no-video", "--ao=pulse", "--loop-file=inf", "--no-terminal", "--script=\(plugin)", rig.tone.path],
            extraEnvironment: rig.bus.environment)
        try waitUntil(timeout: .seconds(15), "mpv plays on the server") { rig.watcher.snapshot.sinkInputs.values.contains { $0.properties["application.name"]?.lowercased().contains("mpv") == true } }
        let mpv = "org.mpris.MediaPlayer2.mpv"
        try waitUntil(timeout: .seconds(10), "the daemon matched mpv's session to its player; log:\n\(rig.daemon.log)") {
            try PulseAudioRealAppTests.sessions(rig).contains { $0.mprisPlayers[mpv] != nil }
        }
        let call = try rig.pulse.play(rig.tone, properties: ["media.role": "phone"])
        try waitUntil(timeout: .seconds(10), "mpv is paused; log:\n\(rig.daemon.log)") { try playerStatus(rig) == "Paused" }
        // Paused by us over MPRIS and owed a Play: its session says so. (A call that comes before
        // the daemon heard mpv's Playing holds its stream first, then pauses it when the late
        // Playing comes: heldInstead, owed a Play all the same.)
        try waitUntil(timeout: .seconds(5), "mpv's session is paused by us over MPRIS; log:\n\(rig.daemon.log)") {
            try PulseAudioRealAppTests.sessions(rig).contains {
                $0.mprisPlayers[mpv] != nil && ["paused", "heldInstead"].contains($0.mprisPause) && $0.mprisOwedPlay == [mpv]
            }
        }
        call.terminate()
        try waitUntil(timeout: .seconds(10), "mpv plays again; log:\n\(rig.daemon.log)") { try playerStatus(rig) == "Playing" }
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
    }

    private func playerStatus(_ rig: Rig) throws -> String {
        let output = try? ManagedProcess.run(
            "playerctl", ["--player=mpv", "status"], environment: rig.pulse.environment.merging(rig.bus.environment) { $1 },
            logDirectory: rig.pulse.logDirectory)
        return output?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    @Test func statusSaysWhichServer() throws {
        let rig = try Rig()
        defer { rig.stop() }
        _ = try rig.pulse.play(rig.tone, properties: ["media.role": "music"])
        try rig.watcher.waitForStream("music")
        var status = ""
        try waitUntil(timeout: .seconds(5), "status lists the music's session: \(status)") {
            status = try rig.ctl(["status"])
            return status.contains("paplay")
        }
        #expect(status.contains("audio server: PulseAudio"), "\(status)")
        #expect(status.contains("PulseAudio routes streams itself"), "\(status)")
        #expect(status.contains("speakers"), "the route names the server's sink: \(status)")
        #expect(status.contains(": the graph runs at this now"), "the default sink's rate and latency, as observed: \(status)")
    }

    @Test func graphReadsThePulseAudioServerWhereNoPipeWireAnswers() throws {
        let rig = try Rig()
        defer { rig.stop() }
        _ = try rig.pulse.play(rig.tone, properties: ["media.role": "music"])
        try rig.watcher.waitForStream("music")
        let text = try rig.ctl(["graph"])
        for line in ["PulseAudio server: pulseaudio 16.1", "* 0 speakers", "audiosession.hold", "role=music app=paplay → speakers volume 100%/100%"] {
            #expect(text.contains(line), "graph lacks '\(line)':\n\(text)")
        }
        #expect(!text.contains("module-role-cork"), "taken over while the daemon runs:\n\(text)")
        let json = try rig.ctl(["graph", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["defaultSink"] as? String == "speakers")
        #expect((object["streams"] as? [[String: Any]])?.contains { $0["role"] as? String == "music" && $0["device"] as? String == "speakers" } == true)
    }

    @Test func monitorShowsTheCallHoldingTheMusicAndGivingItBack() throws {
        let rig = try Rig()
        defer { rig.stop() }
        let monitor = try rig.pulse.spawn(DaemonProcess.path(of: "audiosessionctl"), ["monitor"], extraEnvironment: rig.bus.environment)
        try waitUntil(timeout: .seconds(10), "monitor subscribed: \(monitor.output)\(monitor.errorOutput)") {
            monitor.output.contains("watching audiosessiond")
        }
        _ = try rig.pulse.play(rig.tone, properties: ["media.role": "music"])
        try rig.watcher.waitForStream("music")
        let call = try rig.pulse.play(rig.tone, properties: ["media.role": "phone"])
        try rig.watcher.waitForSink(of: "music", "audiosession.hold")
        call.terminate()
        try rig.watcher.waitForSink(of: "music", "speakers")
        try waitUntil(timeout: .seconds(5), "monitor shows the hold and its end:\n\(monitor.output)") {
            monitor.output.contains("interruptionBegan method=unlink reason=default")
                && monitor.output.contains("interruptionEnded method=unlink")
        }
        monitor.terminate()
    }

    @Test func silentModeSilencesAGameAndGivesItBack() throws {
        let rig = try Rig()
        defer { rig.stop() }
        _ = try rig.pulse.play(rig.tone, properties: ["media.role": "game"])
        _ = try rig.pulse.play(rig.tone, properties: ["media.role": "music"])
        try rig.watcher.waitForStream("game")
        try rig.watcher.waitForStream("music")
        try waitUntil(timeout: .seconds(5), "the game's record exists") { try rig.watcher.streamRestore()["sink-input-by-media-role:game"] != nil }
        let record = try rig.watcher.streamRestore()["sink-input-by-media-role:game"]
        try rig.ctl(["silent", "on"])
        try rig.watcher.waitForVolume(of: "game") { $0 == 0 }
        #expect(rig.watcher.volume(of: "music") == 65536, "media plays on in silent mode")
        try rig.ctl(["silent", "off"])
        try rig.watcher.waitForVolume(of: "game") { $0 == 65536 }
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
        try waitUntil(timeout: .seconds(5), "the game's record is as it was") {
            try rig.watcher.streamRestore()["sink-input-by-media-role:game"] == record
        }
    }

    /// A role-less player no rule names is silenced in silent mode while it may be a beep;
    /// once it has played longer than a short sound it is media playback and plays on. The
    /// server keeps no saved volume of our making for it.
    @Test func aRoleLessPlayerPlaysOnInSilentModeOnceItPlaysLongerThanABeep() throws {
        let rig = try Rig()
        defer { rig.stop() }
        try rig.ctl(["silent", "on"])
        let restored = try rig.watcher.streamRestore()
        _ = try rig.pulse.spawn("paplay", ["--client-name=midi-player", rig.tone.path])
        try rig.watcher.waitForStream("midi-player")
        try rig.watcher.waitForVolume(of: "midi-player") { $0 == 0 }
        try rig.watcher.waitForVolume(of: "midi-player", timeout: .seconds(10)) { $0 == 65536 }
        let status = try rig.ctl(["status", "--json"])
        #expect(status.contains("\"classifiedBy\":\"playing\""), "\(status)")
        try rig.ctl(["silent", "off"])
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
        try waitUntil(timeout: .seconds(5), "no saved volume of ours is left") {
            let now = try rig.watcher.streamRestore()
            return now.filter { restored[$0.key] != $0.value }.values.allSatisfy { !$0.muted && !$0.volume.contains(0) }
        }
    }

    @Test func aDeniedAppRecordsSilenceAndAGrantedOneDoesNot() throws {
        let rig = try Rig()
        defer { rig.stop() }
        // Two programs (copies of pacat, parec's binary, under their names): a permission is the
        // program's, never a client name's — the denied one calls itself the granted one.
        try rig.ctl(["permission", "deny", "deniedrecorder"])
        try rig.ctl(["permission", "grant", "grantedrecorder"])
        for (app, name) in [("deniedrecorder", "grantedrecorder"), ("grantedrecorder", "grantedrecorder")] {
            let program = rig.pulse.directory.appendingPathComponent(app)
            try FileManager.default.copyItem(atPath: "/usr/bin/pacat", toPath: program.path)
            _ = try rig.pulse.spawn(
                program.path, ["-r", "-d", "mic", "--client-name=\(name)", "--stream-name=\(app)", "/dev/null"],
                extraEnvironment: ["PULSE_PROP": "media.role=production"])
        }
        func recorder(_ app: String) -> PulseStream? {
            rig.watcher.snapshot.sourceOutputs.values.first { $0.properties["media.name"] == app }
        }
        try waitUntil(timeout: .seconds(10), "both recorders run") { recorder("deniedrecorder") != nil && recorder("grantedrecorder") != nil }
        try waitUntil(timeout: .seconds(5), "the denied recorder records silence (volume \(String(describing: recorder("deniedrecorder")?.channelVolumes)))") {
            recorder("deniedrecorder")?.channelVolumes.max() == 0
        }
        // Both share a stream-restore record (by role): the denied one's silence lands in it, and
        // a recorder that starts meanwhile is given the record's volume from before at once.
        try waitUntil(timeout: .seconds(5), "the granted recorder records at its own volume (\(String(describing: recorder("grantedrecorder")?.channelVolumes)))") {
            recorder("grantedrecorder")?.channelVolumes.max() == 65536
        }
        let sessions = try PulseAudioRealAppTests.sessions(rig)
        #expect(sessions.filter(\.captureSilenced).count == 1, "the denied recorder's session only: \(sessions.map(\.summary))")
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
        try waitUntil(timeout: .seconds(5), "the denied recorder's volume is its own again") { recorder("deniedrecorder")?.channelVolumes.max() == 65536 }
    }

    /// An explicit session's own route on PulseAudio: its preferred input moves its recorder off
    /// the default source, no preference puts it back on the default, and at exit it follows
    /// the default again with its stream-restore record as it was.
    @Test func aPreferredInputMovesTheSessionsRecorderAndTheDefaultComesBack() async throws {
        // A second source the server has before the daemon starts: it does not take over.
        let rig = try Rig { _ = try $0.pactl(["load-module", "module-null-source", "source_name=line-in", "description=line-in"]) }
        defer { rig.stop() }
        let connection = try BusConnection(address: rig.bus.address)
        defer { connection.close() }
        let explicit = try await ExplicitSession.create("recorder", on: connection)
        let number = explicit.number
        func session(_ member: String, _ arguments: [BusValue] = []) async throws { try await explicit.call(member, arguments) }
        try await session("SetCategory", [.string("record"), .string("default"), .uint32(0)])
        try await session("SetActive", [.bool(true), .uint32(0)])
        _ = try rig.pulse.spawn("parec", ["--client-name=recorder", "/dev/null"], extraEnvironment: ["PULSE_PROP": "audiosession.id=\(number)"])
        func source() -> String? {
            let snapshot = rig.watcher.snapshot
            return snapshot.sourceOutputs.values.first { $0.properties["application.name"] == "recorder" }.flatMap { snapshot.sources[$0.device]?.name }
        }
        let defaultSource = { rig.watcher.snapshot.server.defaultSourceName }
        try waitUntil(timeout: .seconds(10), "the recorder records from the default (\(String(describing: defaultSource())))") {
            source() != nil && source() == defaultSource()
        }
        let start = try #require(defaultSource())
        #expect(start == "mic")
        let other = "line-in"
        let key = "source-output-by-application-name:recorder"
        try waitUntil(timeout: .seconds(5), "the recorder's record exists") { try rig.watcher.streamRestore()[key] != nil }
        let record = try rig.watcher.streamRestore()[key]

        try await session("SetPreferredInput", [.string(other)])
        try waitUntil(timeout: .seconds(5), "the recorder records from \(other) (now \(source() ?? "none")); log:\n\(rig.daemon.log)") { source() == other }
        #expect(defaultSource() == start, "the server's default is not the session's to change")
        try await session("SetPreferredInput", [.string("")])
        try waitUntil(timeout: .seconds(5), "the recorder follows the default again (now \(source() ?? "none"))") { source() == start }

        try await session("SetPreferredInput", [.string(other)])
        try waitUntil(timeout: .seconds(5), "the recorder records from \(other) again") { source() == other }
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
        try waitUntil(timeout: .seconds(5), "at exit the recorder follows the default again (now \(source() ?? "none"))") { source() == start }
        try waitUntil(timeout: .seconds(5), "the recorder's record is as it was") { try rig.watcher.streamRestore()[key] == record }
    }

    /// The user's mute key on PulseAudio's microphone: an explicit session recording from it is
    /// interrupted (`builtInMicMuted`) and told `shouldResume` when it is back. The mute is the
    /// user's: the daemon never writes it.
    @Test func mutingTheMicrophoneInterruptsARecordingSession() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let connection = try BusConnection(address: rig.bus.address)
        defer { connection.close() }
        let memo = try await ExplicitSession.create("memo", on: connection)
        let interruptions = try await connection.signals(path: memo.path, interface: "org.audiosession.Session1", member: "Interruption")
        try await memo.call("SetCategory", [.string("record"), .string("default"), .uint32(0)])
        try await memo.call("SetActive", [.bool(true), .uint32(0)])
        final class Received: Sendable { let arguments = Mutex<[[BusValue]]>([]) }
        let received = Received()
        let collector = Task { for await signal in interruptions { received.arguments.withLock { $0.append(signal.arguments) } } }
        defer { collector.cancel() }
        func next(_ count: Int) async throws -> [BusValue] {
            try await waitUntil(timeout: .seconds(5), "Interruption signal \(count) (got \(received.arguments.withLock { $0 }))\n\(rig.daemon.log)") {
                () async throws -> Bool in received.arguments.withLock { $0.count >= count }
            }
            return received.arguments.withLock { $0[count - 1] }
        }

        _ = try rig.pulse.pactl(["set-source-mute", "mic", "1"])
        #expect(try await next(1) == [.uint32(1), .uint32(2), .uint32(0)], "began, reason builtInMicMuted")
        _ = try rig.pulse.pactl(["set-source-mute", "mic", "0"])
        #expect(try await next(2) == [.uint32(0), .uint32(0), .uint32(1)], "ended with shouldResume")
        // The observer's own connection may hear of the unmute after the daemon's signal.
        try waitUntil(timeout: .seconds(5), "the mic unmuted as its user left it") {
            rig.watcher.snapshot.sources.values.first { $0.name == "mic" }?.muted == false
        }
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
    }

    /// `OutputVolume` on PulseAudio is the user's volume of the session's sink (PulseAudio's
    /// percentages are the volume control's scale), 0 while muted; the daemon never writes it.
    @Test func theOutputVolumeIsTheUsersSinkVolume() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let connection = try BusConnection(address: rig.bus.address)
        defer { connection.close() }
        let player = try await ExplicitSession.create("player", on: connection)
        try await player.call("SetCategory", [.string("playback"), .string("default"), .uint32(0)])
        let sink = try #require(rig.watcher.snapshot.server.defaultSinkName)
        func eventually(_ expected: Double) async throws {
            var last: BusValue?
            try await waitUntil(timeout: .seconds(5), "OutputVolume is \(expected) (now \(String(describing: last)))") { () async throws -> Bool in
                last = try await player.property("OutputVolume")
                return last == .double(expected)
            }
        }
        try await eventually(1)
        _ = try rig.pulse.pactl(["set-sink-volume", sink, "50%"])
        try await eventually(0.5)
        _ = try rig.pulse.pactl(["set-sink-mute", sink, "1"])
        try await eventually(0)
        _ = try rig.pulse.pactl(["set-sink-mute", sink, "0"])
        try await eventually(0.5)
        #expect(try rig.daemon.terminate() == 0)
        #expect(rig.watcher.snapshot.sinks.values.first { $0.name == sink }?.channelVolumes.max() == 32_768, "the user's volume, untouched")
    }

    /// `SetInputGain` on PulseAudio: the microphone's volume while the session is active, its
    /// user's volume back after deactivation and after a SIGKILL (at the next start).
    @Test func anInputGainHoldsWhileActiveAndTheUsersVolumeComesBack() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let connection = try BusConnection(address: rig.bus.address)
        defer { connection.close() }
        _ = try rig.pulse.pactl(["set-source-volume", "mic", "80%"])
        func micVolume() -> UInt32? { rig.watcher.snapshot.sources.values.first { $0.name == "mic" }?.channelVolumes.max() }
        func waitForMic(_ expected: UInt32) throws {
            try waitUntil(timeout: .seconds(5), "the mic at \(expected) (now \(String(describing: micVolume())))") { micVolume() == expected }
        }
        try waitUntil(timeout: .seconds(5), "pactl set the mic's volume") { (micVolume() ?? 0) < 65_536 }
        let usersVolume = try #require(micVolume(), "80 %, as PulseAudio keeps it (52428): given back exactly")
        let memo = try await ExplicitSession.create("memo", on: connection)
        try await memo.call("SetCategory", [.string("record"), .string("default"), .uint32(0)])
        var last: BusValue?
        try await waitUntil(timeout: .seconds(5), "InputGain 0.8 (now \(String(describing: last)))") { () async throws -> Bool in
            last = try await memo.property("InputGain")
            return last == .double(0.8)
        }
        #expect(try await memo.property("IsInputGainSettable") == .bool(true))
        try await memo.call("SetInputGain", [.double(0.5)])
        try await memo.call("SetActive", [.bool(true), .uint32(0)])
        try waitForMic(32_768)
        try await memo.call("SetActive", [.bool(false), .uint32(0)])
        try waitForMic(usersVolume)

        try await memo.call("SetActive", [.bool(true), .uint32(0)])
        try waitForMic(32_768)
        kill(rig.daemon.process.pid, SIGKILL)
        _ = try rig.daemon.process.waitForExit(timeout: .seconds(5))
        let next = try DaemonProcess(in: rig.pulse, arguments: ["--verbose"], environment: rig.bus.environment)
        try waitForMic(usersVolume)  // undone by the next start, from its journal
        #expect(try next.terminate() == 0)
    }
}
