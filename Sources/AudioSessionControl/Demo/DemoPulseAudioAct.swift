import Foundation
import PipeWireSandbox
import PulseAudioServer

/// The demo's third act: the same policy on a pure PulseAudio 16 server (no PipeWire), with
/// Debian's role-cork loaded as on a real system and a private session bus. The daemon takes
/// it over, a notification ducks the music and gives back the user's own volume, a call holds
/// the music and gives it back, silent mode silences a game, a recorder the user denied the
/// microphone records silence until granted, the user's new default is an override, unplugged
/// headphones pause the music (racing PulseAudio's own move), and at exit the server's modules
/// and the stream-restore records are as they were. Seen by the demo's own libpulse client.
struct DemoPulseAudioAct {
    let timeline: DemoTimeline
    let daemonPath: String
    let controlPath: String

    func run() throws {
        timeline.heading("Act 3 — the same policy on a pure PulseAudio 16 server (no PipeWire).")
        guard (try? PrivatePulseAudio.prefix()) != nil else {
            timeline.note("not run: PulseAudio 16 is not unpacked here (scripts/fetch-pulseaudio.sh does it; make demo runs it)")
            return
        }
        let pulse = try PrivatePulseAudio()
        defer { pulse.stop() }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        timeline.say(.server, "private PulseAudio 16 up (pid \(pulse.serverPID.map(String.init) ?? "?")) and a private session bus, in \(pulse.runtimeDirectory.path)")
        timeline.note("sinks: speakers (the default), headphones; module-stream-restore and module-role-cork loaded, as Debian's default.pa does")
        let modulesBefore = try pulse.moduleList()
        let watcher = try PulseWatcher(pulse)
        // Null sinks have no port types: a port rule says which is the speaker, which the headphones.
        let rules = pulse.directory.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try """
            audiosession.port-rules = [
                { matches = [ { node.name = "headphones" } ]  actions = { port-type = headphones } }
                { matches = [ { node.name = "speakers" } ]  actions = { port-type = builtInSpeaker } }
            ]
            """.write(to: rules.appendingPathComponent("90-demo-ports.conf"), atomically: true, encoding: .utf8)
        timeline.note("a port rule types the null sinks: speakers as builtInSpeaker, headphones as headphones")
        let daemon = try pulse.spawn(
            daemonPath, ["--backend", "pulseaudio", "--rules", rules.path, "--state-dir", pulse.directory.appendingPathComponent("state").path],
            extraEnvironment: bus.environment)
        do {
            try play(with: daemon, in: Stage(pulse: pulse, bus: bus, watcher: watcher, controlPath: controlPath), modulesBefore: modulesBefore)
        } catch let error as DemoError {
            throw error
        } catch {
            throw DemoError.stepFailed(String(describing: error), log: daemon.errorOutput)
        }
    }

    /// What the act's steps share: the server, the bus, the observer.
    struct Stage {
        let pulse: PrivatePulseAudio
        let bus: PrivateSessionBus
        let watcher: PulseWatcher
        let controlPath: String

        /// Runs `audiosessionctl` against the daemon on the private bus; its output.
        @discardableResult
        func control(_ arguments: [String]) throws -> String {
            try ManagedProcess.run(
                controlPath, arguments, environment: pulse.environment.merging(bus.environment) { $1 }, logDirectory: pulse.logDirectory)
        }

        /// The recording stream of the app named `app`.
        func recorder(_ app: String) -> PulseStream? {
            watcher.snapshot.sourceOutputs.values.first { $0.properties["application.name"] == app }
        }
    }

    private func play(with daemon: ManagedProcess, in stage: Stage, modulesBefore: [String]) throws {
        let (pulse, watcher) = (stage.pulse, stage.watcher)
        try waitUntil(timeout: .seconds(10), "audiosessiond takes over the server") {
            watcher.snapshot.sinks.values.contains { $0.name == "audiosession.hold" && $0.state == .suspended }
                && !watcher.snapshot.modules.values.contains { $0.name == "module-role-cork" }
        }
        timeline.say(.daemon, "audiosessiond attached (pid \(daemon.pid)): unloaded module-role-cork while it runs, loaded a suspended sink 'audiosession.hold' for held streams")
        let status = try stage.control(["status"])
        if let server = status.split(separator: "\n").first(where: { $0.contains("audio server:") }) {
            timeline.say(.user, "audiosessionctl status → \(server.trimmingCharacters(in: .whitespaces))")
        }

        let tone = try pulse.testTone(seconds: 30)
        _ = try pulse.play(tone, properties: ["media.role": "music", "application.name": "Music Player"])
        try watcher.waitForSink(of: "music", "speakers")
        timeline.say(.app, "Music Player starts: paplay (media.role=music) → speakers")
        guard let music = watcher.sinkInput("music") else { return }
        _ = try pulse.pactl(["set-sink-input-volume", String(music.index), "80%"])
        let user = UInt32(0.8 * Double(PulseVolume.norm))
        try watcher.waitForVolume(of: "music") { $0 == user }
        timeline.say(.user, "sets the music to 80 % (pactl set-sink-input-volume)")
        let record = try watcher.streamRestore()["sink-input-by-media-role:music"]

        let chimeStarted = ContinuousClock.now
        let chime = try pulse.play(try pulse.testTone(seconds: 2), properties: ["media.role": "event"])
        timeline.say(.app, "a notification sounds for 2 s: paplay (media.role=event)")
        try watcher.waitForVolume(of: "music") { $0 < user }
        let firstStep = milliseconds(since: chimeStarted)
        // The shipped duck level, 0.3 of the user's volume on a linear scale (PulseAudio's
        // percentages are cubic).
        let ducked = PulseVolume.step(PulseVolume.linear([user]) * 0.3)
        try watcher.waitForVolume(of: "music") { $0 == ducked }
        timeline.say(.server, "music ducked to \(percent(ducked)) = 0.3 × the user's volume: first step \(firstStep), all the way \(milliseconds(since: chimeStarted)) after the notification started (10 ms steps)")
        _ = try chime.waitForExit(timeout: .seconds(10))
        let chimeEnded = ContinuousClock.now
        try watcher.waitForVolume(of: "music", timeout: .seconds(10)) { $0 == user }
        timeline.say(.server, "music back at exactly \(percent(user)) (\(milliseconds(since: chimeEnded)) after the notification ended): the user's own volume")

        let callStarted = ContinuousClock.now
        let call = try pulse.play(tone, properties: ["media.role": "phone", "application.name": "Phone"])
        timeline.say(.app, "a call starts: paplay (media.role=phone)")
        try watcher.waitForSink(of: "music", "audiosession.hold")
        timeline.say(.server, "music → audiosession.hold (\(milliseconds(since: callStarted))): held, its clock stopped; PulseAudio's own role-cork did not act")
        let callEnded = ContinuousClock.now
        call.terminate()
        timeline.say(.app, "the call ends")
        try watcher.waitForSink(of: "music", "speakers")
        timeline.say(.server, "music → speakers (\(milliseconds(since: callEnded))): it plays on where it was")

        let records = try silentMode(in: stage, userVolume: user).merging(try recordPermission(in: stage)) { $1 }

        _ = try pulse.pactl(["set-default-sink", "headphones"])
        timeline.say(.user, "makes the headphones the default (pactl set-default-sink headphones)")
        try watcher.waitForSink(of: "music", "headphones")
        try waitUntil(timeout: .seconds(5), "the daemon logs the override") { daemon.errorOutput.contains("route change: override (4)") }
        timeline.say(.server, "music → headphones: PulseAudio moves it; the daemon's route change says override (4), and the music plays on")

        let headphones = try watcherModule(of: "headphones", watcher)
        let unplugged = ContinuousClock.now
        _ = try pulse.pactl(["unload-module", String(headphones.index)])
        timeline.say(.user, "unplugs the headphones (their sink goes away)")
        try watcher.waitForSink(of: "music", "audiosession.hold")
        let gone = watcher.removal(of: "headphones") ?? unplugged
        let moves = watcher.moves.filter { $0.stream == music.index && $0.at >= gone }
        let speakers = moves.first { $0.sink == "speakers" }?.at
        let held = moves.first { $0.sink == "audiosession.hold" }?.at ?? ContinuousClock.now
        if let speakers {
            timeline.say(.server, "music → speakers by PulseAudio itself \(milliseconds(speakers - gone)) after, then → audiosession.hold \(milliseconds(held - speakers)) later: paused, \(milliseconds(held - speakers)) of it from the speakers")
        } else {
            timeline.say(.server, "music → audiosession.hold \(milliseconds(held - gone)) after: paused before PulseAudio's own move reached it")
        }

        kill(daemon.pid, SIGTERM)
        let exitStatus = try daemon.waitForExit(timeout: .seconds(5))
        timeline.say(.daemon, "SIGTERM → exited with status \(exitStatus)")
        try watcher.waitForSink(of: "music", "speakers")
        timeline.say(.server, "music → speakers: released as the daemon exits")
        let modulesAfter = try pulse.moduleList()
        let expected = modulesBefore.filter { !$0.contains("sink_name=headphones") }  // unplugged by the demo
        let recordAfter = try watcher.streamRestore()["sink-input-by-media-role:music"]
        guard modulesAfter == expected, recordAfter == record else {
            throw DemoError.stepFailed(
                "the server is not as it was: modules \(modulesAfter) (expected \(expected)), the music's record \(String(describing: recordAfter)) (before \(String(describing: record)))",
                log: daemon.errorOutput)
        }
        let recordsAfter = try watcher.streamRestore()
        for (key, before) in records where recordsAfter[key] != before {
            throw DemoError.stepFailed(
                "the record \(key) is \(String(describing: recordsAfter[key])), it was \(before)", log: daemon.errorOutput)
        }
        timeline.say(.check, "module-role-cork loaded again, audiosession.hold gone, the stream-restore records of the music, the game and the recorder as they were")
    }

    /// Silent mode silences the game (an ambient session), never the music. The game's
    /// stream-restore record before, by key.
    private func silentMode(in stage: Stage, userVolume: UInt32) throws -> [String: StreamRestoreEntry] {
        let watcher = stage.watcher
        _ = try stage.pulse.play(try stage.pulse.testTone(seconds: 30), properties: ["media.role": "game", "application.name": "Game"])
        try watcher.waitForStream("game")
        timeline.say(.app, "a game starts: paplay (media.role=game, an ambient session) and mixes with the music")
        let key = "sink-input-by-media-role:game"
        try waitUntil(timeout: .seconds(5), "the game's stream-restore record exists") { try watcher.streamRestore()[key] != nil }
        let record = try watcher.streamRestore()[key]
        let silenced = ContinuousClock.now
        try stage.control(["silent", "on"])
        timeline.say(.user, "audiosessionctl silent on")
        try watcher.waitForVolume(of: "game") { $0 == 0 }
        let music = watcher.volume(of: "music")
        guard music == userVolume else { throw DemoError.stepFailed("silent mode touched the music: \(music.map(percent) ?? "none")", log: "") }
        timeline.say(.server, "game volume 0 % (\(milliseconds(since: silenced))); the music untouched at \(percent(userVolume))")
        let unsilenced = ContinuousClock.now
        try stage.control(["silent", "off"])
        timeline.say(.user, "audiosessionctl silent off")
        try watcher.waitForVolume(of: "game") { $0 == PulseVolume.norm }
        timeline.say(.server, "game volume back to 100 % (\(milliseconds(since: unsilenced)))")
        return record.map { [key: $0] } ?? [:]
    }

    /// A recorder the user denied the microphone records silence (its source output at 0 %), and
    /// records again once granted. Its stream-restore record before, by key.
    private func recordPermission(in stage: Stage) throws -> [String: StreamRestoreEntry] {
        // A permission is the program's, not a name's: the recorder is its own program
        // (pacat, parec's binary, copied as voice-memo), whatever it calls itself.
        let app = "Voice Memo"
        let program = stage.pulse.directory.appendingPathComponent("voice-memo")
        try FileManager.default.copyItem(atPath: "/usr/bin/pacat", toPath: program.path)
        _ = try stage.pulse.spawn(
            program.path, ["-r", "-d", "mic", "--client-name=\(app)", "/dev/null"], extraEnvironment: ["PULSE_PROP": "media.role=production"])
        try waitUntil(timeout: .seconds(5), "the recorder runs") { stage.recorder(app) != nil }
        timeline.say(.app, "Voice Memo records from the microphone: the program voice-memo (media.role=production)")
        let key = "source-output-by-media-role:production"
        try waitUntil(timeout: .seconds(5), "the recorder's stream-restore record exists") { try stage.watcher.streamRestore()[key] != nil }
        let record = try stage.watcher.streamRestore()[key]
        let denied = ContinuousClock.now
        try stage.control(["permission", "deny", "voice-memo"])
        timeline.say(.user, "audiosessionctl permission deny voice-memo")
        try waitUntil(timeout: .seconds(5), "the denied recorder records silence") { stage.recorder(app)?.channelVolumes.max() == 0 }
        timeline.say(.server, "Voice Memo's recording volume 0 % (\(milliseconds(since: denied))): it records silence, and keeps running")
        let granted = ContinuousClock.now
        try stage.control(["permission", "grant", "voice-memo"])
        timeline.say(.user, "audiosessionctl permission grant voice-memo")
        try waitUntil(timeout: .seconds(5), "the granted recorder records again") { stage.recorder(app)?.channelVolumes.max() == PulseVolume.norm }
        timeline.say(.server, "Voice Memo's recording volume back to 100 % (\(milliseconds(since: granted)))")
        return record.map { [key: $0] } ?? [:]
    }

    private func watcherModule(of sink: String, _ watcher: PulseWatcher) throws -> PulseModule {
        let snapshot = watcher.snapshot
        guard let module = snapshot.sinks.values.first(where: { $0.name == sink })?.ownerModule.flatMap({ snapshot.modules[$0] }) else {
            throw DemoError.stepFailed("no module owns the sink \(sink)", log: "")
        }
        return module
    }

    private func milliseconds(_ duration: Duration) -> String {
        let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f ms", ms)
    }

    private func percent(_ volume: UInt32) -> String {
        String(format: "%.0f %%", 100 * Double(volume) / Double(PulseVolume.norm))
    }

    private func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return String(format: "%.1f ms", ms)
    }
}
