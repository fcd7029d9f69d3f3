import Foundation
import Logging
import PipeWireSandbox
import PulseAudioServer
import Testing

/// The real-app corpus (docs/real-apps.md) on a pure PulseAudio 16 server: the same programs as
/// on PipeWire, their ALSA ones through ALSA's pulse plugin (``PulseAudioWithALSA``), under the
/// real daemon and a private session bus (``PulseAudioSessionTests/Rig``). What the daemon made
/// of each is read from `audiosessionctl status --json` and `monitor --json` over the bus, what
/// the server does from a libpulse observer (``PulseWatcher``), players through `playerctl`.
@Suite("Real apps on PulseAudio", .serialized)
struct PulseAudioRealAppTests {
    typealias Rig = PulseAudioSessionTests.Rig
    typealias Session = SessionOracle.Session

    static let holdSink = "audiosession.hold"
    static let holdSource = "audiosession.hold-input"

    // MARK: - A call between two linphonec copied as `homephone`

    /// Two linphonec (linphone-cli) copied as `homephone`, a call app no rule names, call each
    /// other over ALSA's pulse plugin. Each end opens its microphone before its speaker: a
    /// recorder for a moment, then a call. Neither end is ever held by the other (no
    /// `interruptionBegan` for either on the bus, none of their sink inputs ever on the parking
    /// sink, none of their source outputs on the parking source); mpv, the music, is paused over
    /// MPRIS during the call and plays again after.
    @Test func twoUnknownLinphonePhonesAreBothHeardAndPauseTheMusic() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let alsa = try PulseAudioWithALSA(rig.pulse)
        let monitor = try Self.monitor(rig)
        defer { monitor.terminate() }
        let music = try await Self.startMusic(rig)

        let parking = ParkingWatch(rig.watcher)
        defer { parking.stop() }
        let call = try await Self.startLinphoneCall(rig, alsa: alsa)
        defer { call.stop() }
        try await Self.waitForMusic(rig, "Paused")
        for (end, phone) in [("caller", call.caller), ("callee", call.callee)] {
            let session = try #require(try Self.session(rig, ofProcess: phone.process.pid))
            print("linphonec on PulseAudio, \(end): opens its \(phone.openings.first ?? "?") first; \(session.summary)")
            #expect(session.classifiedBy == "call" && session.category == "playAndRecord" && session.mode == "voiceChat", "\(session.summary)")
        }
        // Heard for a second more: both ends stay on real devices and active.
        try await call.heard.expectHeardThroughout(samples: 10, rig, music: music.id, monitor: monitor, parking: parking)

        call.caller.send("terminate")
        call.stop()
        try await Self.waitForMusic(rig, "Playing")
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
    }

    // MARK: - A recorder through a call

    /// arecord (ALSA, through the pulse plugin) records the microphone — a source that sounds:
    /// PulseAudio's sine source — while two linphonec call each other. A recorder is never
    /// silenced by the policy: its session stays an active recording, its source output stays
    /// on the microphone, its file keeps growing through the call, and what it recorded during
    /// the call is the microphone's tone, not silence.
    ///
    /// The sine source produces its samples in blocks of 2 s whatever latency its clients ask
    /// for (seen with parecord `--latency-msec=50` too): a recorder's file grows by 2 s at once,
    /// every 2 s. So the call lasts 6 s, and the file must grow at least every 2.5 s and by the
    /// call's length less one block.
    @Test func aRecorderKeepsRecordingThroughACall() async throws {
        let rig = try Rig { pulse in
            // A microphone that sounds: a null source records zeros.
            _ = try pulse.pactl(["load-module", "module-sine-source", "source_name=sine-mic", "rate=48000", "frequency=440"])
            _ = try pulse.pactl(["set-default-source", "sine-mic"])
        }
        defer { rig.stop() }
        let alsa = try PulseAudioWithALSA(rig.pulse)
        let monitor = try Self.monitor(rig)
        defer { monitor.terminate() }
        let recording = rig.pulse.directory.appendingPathComponent("recording.raw")
        // 48 kHz, mono, 16 bits: 96,000 bytes a second, raw (the file is only samples).
        let bytesPerSecond = 96_000
        let recorder = try alsa.spawn("arecord", ["-q", "-t", "raw", "-f", "S16_LE", "-r", "48000", "-c", "1", recording.path])
        var recorderSession: Session?
        try await eventually("arecord is a recording session; its output: \(recorder.errorOutput); daemon:\n\(rig.daemon.log)") {
            recorderSession = try Self.session(rig, ofProcess: recorder.pid)
            return recorderSession?.category == "record" && recorderSession?.activity == "active"
        }
        try await eventually("arecord has recorded a second") { Self.size(of: recording) >= bytesPerSecond }

        let parking = ParkingWatch(rig.watcher)
        defer { parking.stop() }
        let call = try await Self.startLinphoneCall(rig, alsa: alsa)
        defer { call.stop() }
        let callHeard = ContinuousClock.now
        let sizeAtCall = Self.size(of: recording)
        // The call goes on for 6 s, both ends heard, the recorder recording.
        var lastGrowth = callHeard
        var longestWithoutGrowth = Duration.zero
        var size = sizeAtCall
        while ContinuousClock.now - callHeard < .seconds(6) {
            try await Task.sleep(for: .milliseconds(100))
            let why = try call.whyNotHeard(rig, reopening: true)
            #expect(why == nil, "both ends are heard: \(why ?? "")")
            let now = try #require(try Self.session(rig, ofProcess: recorder.pid), "arecord's session is gone")
            #expect(
                now.category == "record" && now.activity == "active" && !now.captureSilenced,
                "the recorder records on: \(now.summary) captureSilenced \(now.captureSilenced)")
            let captures = Self.pid(recorder.pid, captures: rig)
            #expect(captures.count == 1 && captures.allSatisfy { $0.source == "sine-mic" && !$0.muted && !$0.corked }, "arecord records the microphone: \(captures)")
            let grown = Self.size(of: recording)
            if grown > size {
                size = grown
                lastGrowth = .now
            }
            longestWithoutGrowth = max(longestWithoutGrowth, ContinuousClock.now - lastGrowth)
        }
        let callLasted = ContinuousClock.now - callHeard
        let sizeAtEnd = Self.size(of: recording)

        let seconds = Double(callLasted.components.seconds) + Double(callLasted.components.attoseconds) / 1e18
        let recorded = Double(sizeAtEnd - sizeAtCall) / Double(bytesPerSecond)
        print("arecord through the call: \(String(format: "%.2f", recorded)) s recorded in \(String(format: "%.2f", seconds)) s of call; at most \(longestWithoutGrowth.formatted(.units(allowed: [.milliseconds]))) without growing")
        #expect(recorded >= seconds - 2.1, "arecord recorded \(recorded) s in \(seconds) s of call")
        #expect(longestWithoutGrowth < .milliseconds(2500), "arecord's file grew every block: \(longestWithoutGrowth) without")
        let levels = try Self.levels(of: recording, from: sizeAtCall, to: sizeAtEnd, bytesPerSecond: bytesPerSecond)
        print("arecord's levels during the call, a tenth of a second each (peak, of 32767): min \(levels.min() ?? 0), max \(levels.max() ?? 0), \(levels.count) of them")
        #expect(levels.count >= 30 && levels.allSatisfy { $0 > 1000 }, "no silence in what arecord recorded during the call: \(levels)")

        let decisions = Self.decisions(in: monitor)
        let recorderHeld = decisions.filter { $0.session == recorderSession?.id && ["interruptionBegan", "captureSilenced"].contains($0.kind) }
        #expect(recorderHeld.isEmpty, "the recorder was interrupted or silenced: \(recorderHeld); daemon:\n\(rig.daemon.log)")
        let parked = parking.seen.filter { $0.pid == recorder.pid || call.ends.contains($0.pid) }
        #expect(parked.isEmpty, "the recorder or an end of the call was on a parking device: \(parked); daemon:\n\(rig.daemon.log)")
        call.caller.send("terminate")
        call.stop()
        try await eventually("arecord records on after the call") { Self.size(of: recording) > sizeAtEnd + bytesPerSecond / 2 }
        #expect(recorder.isRunning, "arecord runs on: \(recorder.errorOutput)")
        recorder.terminate()
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
    }

    // MARK: - TiMidity++

    /// TiMidity++ (with the freepats instruments) playing a MIDI file through ALSA's pulse
    /// plugin: no role, no rule names it. With silent mode on it is soloAmbient, silenced, for
    /// its first 2 s (it may be a beep); then media playback (`playing`), heard at its own
    /// volume, silent mode leaving it.
    @Test func aMIDIPlayerIsSoloAmbientFor2SecondsThenMediaThatSilentModeLeaves() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let alsa = try PulseAudioWithALSA(rig.pulse)
        try rig.ctl(["silent", "on"])
        let restoredBefore = try rig.watcher.streamRestore()
        let births = try StreamBirths(rig.pulse)
        /// The server's saved stream volumes that changed since TiMidity++ started.
        func savedSince() -> String {
            let now = (try? rig.watcher.streamRestore()) ?? [:]
            return now.filter { restoredBefore[$0.key] != $0.value }.values.map { "\($0.name): volume \($0.volume) muted \($0.muted)" }.sorted().description
        }
        let song = rig.pulse.directory.appendingPathComponent("scale.mid")
        try MIDIFile.scale(seconds: 30).write(to: song)
        let timidity = try alsa.spawn("timidity", ["-c", "/etc/timidity/freepats.cfg", "-Os", song.path])
        defer { timidity.terminate() }

        func stream() -> PulseStream? {
            rig.watcher.snapshot.sinkInputs.values.first { $0.properties["application.process.id"] == String(timidity.pid) }
        }
        try await eventually("TiMidity++ plays on the server; its output: \(timidity.errorOutput.suffix(300))", timeout: .seconds(15)) {
            stream() != nil
        }
        let appeared = ContinuousClock.now
        // What the daemon says of it and what the server does with its streams, as they change:
        // soloAmbient and silenced (its volume 0 on the server) at first, then media playback,
        // heard at its own volume.
        var timeline: [String] = []
        var first: Session?
        var later: Session?
        var playbackAt: Duration?
        try await eventually(
            "TiMidity++ is soloAmbient and silenced, then media playback, heard; what was seen (time: session, its sink inputs):\n\(timeline.joined(separator: "\n"))\nits sink inputs when they appeared: \(births.of(timidity.pid))\nthe server's saved volumes since it started: \(savedSince()); pactl:\n\((try? rig.pulse.pactl(["list", "sink-inputs"])) ?? "?"); daemon:\n\(rig.daemon.log)",
            timeout: .seconds(15)
        ) {
            let session = try Self.session(rig, ofProcess: timidity.pid)
            let streams = Self.pid(timidity.pid, plays: rig)
            let at = ContinuousClock.now - appeared
            let state = "\(session.map { "\($0.category) silenced \($0.silenced) by \($0.classifiedBy)" } ?? "no session"), \(streams)"
            if timeline.last?.hasSuffix(state) != true { timeline.append("\(at.formatted(.units(allowed: [.milliseconds]))): \(state)") }
            guard let session, !streams.isEmpty else { return false }
            if first == nil, session.category == "soloAmbient", session.silenced, streams.allSatisfy({ $0.volume == 0 }) { first = session }
            if session.category == "playback", !session.silenced {
                later = session
                playbackAt = playbackAt ?? at
            }
            return first != nil && playbackAt != nil && streams.allSatisfy { $0.volume == 65536 && !$0.muted }
        }
        print("timidity on PulseAudio: \(timeline.joined(separator: "; ")); its sink inputs: \(births.of(timidity.pid))")
        #expect(first?.classifiedBy.hasPrefix("rules") == true, "at first no rule but the default: \(first?.summary ?? "")")
        #expect(later?.classifiedBy == "playing" && later?.priorityClass == "media", "\(later?.summary ?? "")")
        #expect(playbackAt.map { $0 >= .milliseconds(1800) } == true, "soloAmbient for its first 2 s: media after \(playbackAt.map { "\($0)" } ?? "?")")
        let now = try #require(stream())
        let sink = rig.watcher.snapshot.sinks[now.device]?.name
        #expect(!now.muted && sink != Self.holdSink, "it is heard: muted \(now.muted), on \(sink ?? "?")")
        #expect(timidity.isRunning, "TiMidity++ plays on: \(timidity.errorOutput.suffix(300))")
        try rig.ctl(["silent", "off"])
        timidity.terminate()
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
        // The server keeps no volume of ours (silent mode's 0) for it.
        try await eventually("no saved volume of ours is left: \(savedSince()); its sink inputs: \(births.of(timidity.pid)); daemon:\n\(rig.daemon.log)") {
            let now = try rig.watcher.streamRestore()
            return now.filter { restoredBefore[$0.key] != $0.value }.values.allSatisfy { !$0.muted && !$0.volume.contains(0) }
        }
    }

    // MARK: - Audacious

    /// Audacious (GTK, on a private Xvfb) playing over pulse, its MPRIS player on the private
    /// bus: media playback by the rules; a call pauses it over MPRIS (`playerctl` says Paused)
    /// and its end plays it again; silent mode leaves it heard.
    @Test func aGUIMusicPlayerIsPausedByACallOverMPRISAndPlaysAgainAfter() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let alsa = try PulseAudioWithALSA(rig.pulse)
        let monitor = try Self.monitor(rig)
        defer { monitor.terminate() }
        let player = try RealDesktopPlayer(playing: rig.tone, in: alsa, bus: rig.bus)
        defer { player.stop() }
        var last = ""
        func waitForStatus(_ expected: String) async throws {
            try await eventually(
                "Audacious is \(expected) (playerctl says '\(last)'); its output:\n\(player.process.errorOutput.suffix(1500))\ndaemon:\n\(rig.daemon.log)",
                timeout: .seconds(15)
            ) {
                last = (try? player.status()) ?? "no player"
                return last == expected
            }
        }
        try await waitForStatus("Playing")
        var session: Session?
        try await eventually("Audacious (pid \(player.process.pid)) is an active media session; daemon:\n\(rig.daemon.log)", timeout: .seconds(15)) {
            session = try Self.session(rig, ofProcess: player.process.pid)
            return session?.activity == "active" && session?.streams.isEmpty == false
        }
        let found = try #require(session)
        print("audacious on PulseAudio: \(found.summary)")
        #expect(found.category == "playback" && found.priorityClass == "media" && found.classifiedBy.hasPrefix("rules"), "\(found.summary)")
        // The daemon has matched its session to its MPRIS player before the call (else it would
        // hold its stream instead).
        try await Self.waitForPlayer(of: found, rig)

        let call = try rig.pulse.play(rig.tone, properties: ["media.role": "phone"])
        try await waitForStatus("Paused")
        call.terminate()
        try await waitForStatus("Playing")
        let decisions = Self.decisions(in: monitor)
        #expect(
            decisions.contains { $0.session == found.id && $0.kind == "interruptionBegan" && $0.method == "mpris" },
            "the call paused Audacious over MPRIS: \(decisions)")
        #expect(decisions.contains { $0.session == found.id && $0.kind == "interruptionEnded" }, "\(decisions)")
        let streams = Self.pid(player.process.pid, plays: rig)
        #expect(!streams.isEmpty && streams.allSatisfy { $0.sink != Self.holdSink && !$0.muted && !$0.corked }, "it plays, heard: \(streams)")

        // Silent mode: media plays on, heard.
        try rig.ctl(["silent", "on"])
        let beep = try rig.pulse.spawn("paplay", ["--client-name=beep", try rig.pulse.testTone(seconds: 1).path])
        var beepSession: Session?
        try await eventually("silent mode is on: a beep is silenced; daemon:\n\(rig.daemon.log)") {
            beepSession = try Self.session(rig, ofProcess: beep.pid) ?? beepSession
            return beepSession?.silenced == true
        }
        let after = try #require(try Self.session(rig, ofProcess: player.process.pid))
        #expect(after.silenced == false && after.category == "playback", "\(after.summary)")
        #expect(try player.status() == "Playing")
        let heard = Self.pid(player.process.pid, plays: rig)
        #expect(!heard.isEmpty && heard.allSatisfy { $0.volume == 65536 && !$0.muted }, "it is heard: \(heard)")
        try rig.ctl(["silent", "off"])
        player.stop()
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
    }
}

// MARK: - Helpers

extension PulseAudioRealAppTests {
    /// The daemon's sessions, from `audiosessionctl status --json` over the rig's bus.
    static func sessions(_ rig: Rig) throws -> [Session] {
        let output = try rig.ctl(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
        return (object["sessions"] as? [[String: Any]] ?? []).map(Session.init)
    }

    /// The session of the app whose topmost process (of its own executable) is `pid`.
    static func session(_ rig: Rig, ofProcess pid: Int32) throws -> Session? {
        try sessions(rig).first { $0.appIdentity == "process:\(pid)" }
    }

    /// Waits until `status --json` says the session has an MPRIS player (a call pauses it there
    /// rather than hold its stream).
    static func waitForPlayer(of session: Session, _ rig: Rig) async throws {
        try await eventually("session#\(session.id) has an MPRIS player; daemon:\n\(rig.daemon.log)", timeout: .seconds(10)) {
            try sessions(rig).first { $0.id == session.id }?.hasMPRISPlayer == true
        }
    }

    /// `audiosessionctl monitor --json`, subscribed (it prints every decision from now on).
    static func monitor(_ rig: Rig) throws -> ManagedProcess {
        let monitor = try rig.pulse.spawn(
            DaemonProcess.path(of: "audiosessionctl"), ["monitor", "--json"], extraEnvironment: rig.bus.environment)
        try waitUntil(timeout: .seconds(10), "the monitor watches the daemon (it says: \(monitor.output) \(monitor.errorOutput))") {
            monitor.output.contains("\"signal\":\"Watching\"")
        }
        return monitor
    }

    struct Decision: CustomStringConvertible {
        let session: UInt64
        let kind: String
        let method: String?
        var description: String { "session#\(session) \(kind)\(method.map { " by \($0)" } ?? "")" }
    }

    /// The `Decision` signals the monitor printed, in order.
    static func decisions(in monitor: ManagedProcess) -> [Decision] {
        monitor.output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["signal"] as? String == "Decision"
            else { return nil }
            let details = object["details"] as? [String: Any] ?? [:]
            return Decision(
                session: (object["session"] as? NSNumber)?.uint64Value ?? 0, kind: object["kind"] as? String ?? "",
                method: (object["method"] ?? details["method"]) as? String)
        }
    }

    /// mpv (over pulse, its MPRIS plugin on the rig's bus) playing the tone in a loop as music;
    /// returns its session once the daemon knows its MPRIS player.
    static func startMusic(_ rig: Rig) async throws -> Session {
        let mpv = try rig.pulse.spawn(
            "mpv",
            ["--no-config", "--no-video", "--ao=pulse", "--loop-file=inf", "--no-terminal", "--script=\(MPRISInterruptionTests.mprisPlugin)",
             rig.tone.path],
            extraEnvironment: rig.bus.environment.merging(["PULSE_PROP": "media.role=music"]) { $1 })
        try await waitForMusic(rig, "Playing")
        var music: Session?
        try await eventually("mpv is an active media session; daemon:\n\(rig.daemon.log)") {
            music = try session(rig, ofProcess: mpv.pid)
            return music?.activity == "active" && music?.priorityClass == "media"
        }
        // The daemon has matched it to its MPRIS player (else a call would hold its stream).
        let found = try #require(music)
        try await waitForPlayer(of: found, rig)
        return found
    }

    /// Waits until `playerctl --player=mpv status` says `expected`.
    static func waitForMusic(_ rig: Rig, _ expected: String) async throws {
        var last = ""
        try await eventually("mpv is \(expected) (playerctl says '\(last)'); daemon:\n\(rig.daemon.log)", timeout: .seconds(15)) {
            last = (try? ManagedProcess.run(
                "playerctl", ["--player=mpv", "status"], environment: rig.pulse.environment.merging(rig.bus.environment) { $1 },
                logDirectory: rig.pulse.logDirectory
            ).trimmingCharacters(in: .whitespacesAndNewlines)) ?? "no player"
            return last == expected
        }
    }

    /// Every stream the observer's snapshots show on a parking device (the daemon's hold sink
    /// or source), polled every 5 ms on a thread of its own from its start to ``stop()``: a
    /// stream held for a moment shows here even when each poll of a test misses it.
    final class ParkingWatch: @unchecked Sendable {
        struct Parked: Hashable, CustomStringConvertible {
            let pid: Int32
            let kind: String
            let index: UInt32
            let device: String
            var description: String { "pid \(pid) \(kind) #\(index) on \(device)" }
        }
        private let lock = NSLock()
        private var parked: [Parked] = []
        private var running = true
        private let thread: Thread

        init(_ watcher: PulseWatcher) {
            let box = Box()
            thread = Thread {
                while box.watch?.isRunning ?? false {
                    let snapshot = watcher.snapshot
                    var now: [Parked] = []
                    for stream in snapshot.sinkInputs.values where snapshot.sinks[stream.device]?.name == holdSink {
                        now.append(Parked(pid: Int32(stream.properties["application.process.id"] ?? "") ?? 0, kind: "sink input", index: stream.index, device: holdSink))
                    }
                    for stream in snapshot.sourceOutputs.values where snapshot.sources[stream.device]?.name == holdSource {
                        now.append(Parked(pid: Int32(stream.properties["application.process.id"] ?? "") ?? 0, kind: "source output", index: stream.index, device: holdSource))
                    }
                    box.watch?.add(now)
                    usleep(5_000)
                }
            }
            box.watch = self
            thread.start()
        }

        private final class Box: @unchecked Sendable { weak var watch: ParkingWatch? }

        private var isRunning: Bool { lock.withLock { running } }
        private func add(_ now: [Parked]) {
            lock.withLock { for item in now where !parked.contains(item) { parked.append(item) } }
        }

        /// What was seen parked, in the order first seen.
        var seen: [Parked] { lock.withLock { parked } }

        func stop() { lock.withLock { running = false } }
    }

    /// Each sink input as the server announced it when it appeared (a libpulse observer of its
    /// own): the volume a stream started with, before anyone changed it.
    final class StreamBirths: @unchecked Sendable {
        /// What the observer's callbacks (on its loop thread) write; it holds no reference to
        /// the observer, whose last release must not be on that thread.
        private final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var births: [(index: UInt32, pid: String, volume: [UInt32])] = []
            var removed: [UInt32] = []
            var synced = false
        }
        private let connection: PulseConnection
        private let seen = Seen()

        init(_ pulse: PrivatePulseAudio) throws {
            var logger = Logger(label: "stream-births")
            logger.logLevel = .error
            connection = PulseConnection(configuration: .init(server: "unix:\(pulse.socketPath)", applicationName: "stream-births"), logger: logger)
            connection.setObserver { [seen] event, _ in
                seen.lock.withLock {
                    switch event {
                    case .streamAdded(let stream) where stream.kind == .sinkInput:
                        seen.births.append((stream.index, stream.properties["application.process.id"] ?? "?", stream.channelVolumes))
                    case .streamRemoved(let stream) where stream.kind == .sinkInput:
                        seen.removed.append(stream.index)
                    case .synced:
                        seen.synced = true
                    default:
                        break
                    }
                }
            }
            connection.start()
            let seen = seen
            try waitUntil(timeout: .seconds(10), "the observer sees the server") { seen.lock.withLock { seen.synced } }
        }

        deinit { connection.stop() }

        /// The sink inputs of process `pid`: the volume each appeared with, and whether it is gone.
        func of(_ pid: Int32) -> String {
            seen.lock.withLock {
                seen.births.filter { $0.pid == String(pid) }
                    .map { "#\($0.index) appeared at volume \($0.volume)\(seen.removed.contains($0.index) ? " (gone since)" : "")" }
                    .joined(separator: ", ")
            }
        }
    }

    /// A stream of a process on the server, as an observer sees it.
    struct Seen: CustomStringConvertible {
        let index: UInt32
        let sink: String?
        let source: String?
        let muted: Bool
        let corked: Bool
        let volume: UInt32
        var description: String { "#\(index) on \(sink ?? source ?? "?") muted \(muted) corked \(corked) volume \(volume)" }
    }

    /// The sink inputs whose process is `pid`.
    static func pid(_ pid: Int32, plays rig: Rig) -> [Seen] {
        let snapshot = rig.watcher.snapshot
        return snapshot.sinkInputs.values.filter { $0.properties["application.process.id"] == String(pid) }.sorted { $0.index < $1.index }
            .map { Seen(index: $0.index, sink: snapshot.sinks[$0.device]?.name, source: nil, muted: $0.muted, corked: $0.corked, volume: $0.channelVolumes.max() ?? 0) }
    }

    /// The source outputs (level meters left out) whose process is `pid`.
    static func pid(_ pid: Int32, captures rig: Rig) -> [Seen] {
        let snapshot = rig.watcher.snapshot
        return snapshot.sourceOutputs.values
            .filter { $0.properties["application.process.id"] == String(pid) && !PulseLevelMeter.isMeter($0) }.sorted { $0.index < $1.index }
            .map { Seen(index: $0.index, sink: nil, source: snapshot.sources[$0.device]?.name, muted: $0.muted, corked: $0.corked, volume: $0.channelVolumes.max() ?? 0) }
    }

    static func size(of file: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// The peak of each tenth of a second of 16-bit mono samples in `file` between two offsets.
    static func levels(of file: URL, from start: Int, to end: Int, bytesPerSecond: Int) throws -> [Int] {
        let data = try Data(contentsOf: file)
        let chunk = bytesPerSecond / 10
        var levels: [Int] = []
        var offset = start - start % 2
        while offset + chunk <= min(end, data.count) {
            let peak = data[offset..<(offset + chunk)].withUnsafeBytes { raw in
                raw.bindMemory(to: Int16.self).map { abs(Int(Int16(littleEndian: $0))) }.max() ?? 0
            }
            levels.append(peak)
            offset += chunk
        }
        return levels
    }

    /// Two linphonec copied as `homephone` (a call app no rule names) on the rig's server
    /// through ALSA's pulse plugin, the callee answering by itself; returns once both ends are
    /// heard.
    static func startLinphoneCall(_ rig: Rig, alsa: PulseAudioWithALSA) async throws -> LinphoneCall {
        let calleePort = LoopbackPorts.free(offsets: [0, RealLinphone.rtpOffset])
        let callee = try RealLinphone(name: "bob", port: calleePort, autoAnswer: true, binary: "homephone", in: alsa)
        let callerPort = LoopbackPorts.free(
            offsets: [0, RealLinphone.rtpOffset], avoiding: [calleePort, calleePort + RealLinphone.rtpOffset])
        let caller = try RealLinphone(name: "alice", port: callerPort, binary: "homephone", in: alsa)
        let call = LinphoneCall(caller: caller, callee: callee)
        do {
            try await eventually("both phones are up: \(callee.process.output)\n\(caller.process.output)", timeout: .seconds(15)) {
                callee.isReady && caller.isReady
            }
            caller.send("call sip:bob@127.0.0.1:\(calleePort)")
            try await eventually(
                "both ends are heard: \(call.state(rig))\ncaller:\n\(caller.process.output)\n\(caller.audioLog)\ncallee:\n\(callee.process.output)\n\(callee.audioLog)\ndaemon:\n\(rig.daemon.log)",
                timeout: .seconds(20)
            ) { try call.isHeard(rig) }
        } catch {
            call.stop()
            throw error
        }
        return call
    }

    /// A call between two linphonec, as the daemon and the server show it (``PulseCall``).
    final class LinphoneCall {
        let caller: RealLinphone
        let callee: RealLinphone
        let heard: PulseCall

        init(caller: RealLinphone, callee: RealLinphone) {
            self.caller = caller
            self.callee = callee
            heard = PulseCall(ends: [caller.process.pid, callee.process.pid])
        }

        var ends: [Int32] { heard.ends }
        func isHeard(_ rig: Rig) throws -> Bool { try heard.isHeard(rig) }
        func whyNotHeard(_ rig: Rig, reopening: Bool = false) throws -> String? { try heard.whyNotHeard(rig, reopening: reopening) }
        func state(_ rig: Rig) -> String { heard.state(rig) }

        func stop() {
            caller.stop()
            callee.stop()
        }
    }
}
