import Foundation
import PipeWireGraph
import PipeWireSandbox

/// The demo's second act, enforcement, with real clients on a fresh private PipeWire
/// and a private session bus: mpv plays music (with MPRIS); a notification ducks it with a ramp
/// and gives it back; a call pauses mpv over MPRIS and its end plays it again; a game's effects
/// mix; silent mode silences the game only; a low-latency app forces a small quantum and a high
/// rate that are released when it exits. Each line is printed once the demo's own clients (its
/// PipeWire observer, `playerctl` on the bus) saw it, with the time it took.
struct DemoEnforcementAct {
    let timeline: DemoTimeline
    let daemonPath: String
    let controlPath: String

    /// The shipped `duck.level` (policy-rules/10-settings.conf).
    static let duckLevel: Float = 0.3

    func run() throws {
        timeline.heading("Act 2 — enforcement: ducking, interruptions, mixing, silent mode, hardware preferences.")
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        try sandbox.startPulse()
        timeline.say(.pipewire, "private daemon up (pid \(sandbox.daemonPID.map(String.init) ?? "?")) with pipewire-pulse, a private session bus, in \(sandbox.runtimeDirectory.path)")
        // A card that takes 96 kHz as well, as most do: the daemon only forces rates the graph accepts.
        try sandbox.run("pw-metadata", ["-n", "settings", "0", "clock.allowed-rates", "[ 48000 96000 ]"])
        let observer = DemoObserver(remote: sandbox.socketPath)
        defer { observer.stop() }
        try waitUntil(timeout: .seconds(5), "the graph accepts 96 kHz") {
            observer.setting("clock.allowed-rates").contains("96000")
        }
        timeline.note("devices: speaker, headphones (sinks), mic (source); clock.allowed-rates = [ 48000 96000 ]")
        let state = sandbox.directory.appendingPathComponent("state").path
        let readiness = try ReadinessSocket(in: sandbox.directory)
        let daemon = try sandbox.spawn(
            daemonPath, ["--state-dir", state], extraEnvironment: bus.environment.merging(readiness.environment) { $1 })
        let stage = Stage(sandbox: sandbox, bus: bus, observer: observer, daemon: daemon, readiness: readiness)
        do {
            try play(on: stage)
        } catch let error as DemoError {
            throw error
        } catch {
            throw DemoError.stepFailed(String(describing: error), log: daemon.errorOutput)
        }
    }

    /// What the act's steps share: the sandbox, the bus, the observer and the daemon.
    struct Stage {
        let sandbox: PrivatePipeWire
        let bus: PrivateSessionBus
        let observer: DemoObserver
        let daemon: ManagedProcess
        /// Where the daemon says it is ready (`sd_notify`, as it tells systemd).
        let readiness: ReadinessSocket

        /// Waits for the daemon to log `text` (readiness only; never what the timeline claims).
        func waitForDaemon(_ text: String, count: Int = 1) throws {
            try waitUntil(timeout: .seconds(10), "audiosessiond logs '\(text)'") {
                guard daemon.isRunning else { throw SandboxError.notRunning("audiosessiond exited") }
                return daemon.errorOutput.components(separatedBy: text).count - 1 >= count
            }
        }

        /// mpv's PlaybackStatus as `playerctl` reads it on the bus ("" when it has no player).
        func playerStatus() -> String {
            let environment = sandbox.environment.merging(bus.environment) { $1 }
            let status = try? ManagedProcess.run(
                "playerctl", ["--player=mpv", "status"], environment: environment, logDirectory: sandbox.logDirectory)
            return status?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        }

        /// Waits until `playerctl` says `expected`; returns when it did (each poll runs
        /// playerctl, so the time is an upper bound by a few milliseconds).
        func waitForPlayer(_ expected: String) throws -> ContinuousClock.Instant {
            var last = ""
            do {
                try waitUntil(timeout: .seconds(10), "playerctl says mpv is \(expected)") {
                    last = playerStatus()
                    return last == expected
                }
            } catch {
                throw SandboxError.timeout("\(error) (playerctl said '\(last)' last)")
            }
            return .now
        }

        /// Waits until a stream named `name` is in the graph; returns it and when the observer
        /// received it.
        func waitForStream(_ name: String) throws -> (Node, ContinuousClock.Instant) {
            var node: Node?
            try waitUntil(timeout: .seconds(10), "the stream \(name) appears") {
                node = observer.snapshot.node(named: name)
                return node != nil
            }
            return (node!, observer.appearance(of: node!.id) ?? .now)
        }
    }

    private func play(on stage: Stage) throws {
        let sandbox = stage.sandbox
        try stage.readiness.waitUntilReady(of: stage.daemon)
        timeline.say(.daemon, "audiosessiond attached (pid \(stage.daemon.pid)) and watches MPRIS players on the private bus")

        let tone = try sandbox.testTone(seconds: 30)
        let music = try startMusic(on: stage, tone: tone)
        try duck(music, on: stage, tone: tone)
        try interrupt(music, on: stage, tone: tone)
        let game = try mixGame(with: music, on: stage, tone: tone)
        try silence(game, sparing: music, on: stage)
        try forceLowLatency(on: stage)

        kill(stage.daemon.pid, SIGTERM)
        let status = try stage.daemon.waitForExit(timeout: .seconds(5))
        timeline.say(.daemon, "SIGTERM → exited with status \(status)")
        guard status == 0 else { throw DemoError.daemonFailed(status: status, log: stage.daemon.errorOutput) }
    }

    /// mpv with the MPRIS plugin plays the Music stream through pipewire-pulse.
    private func startMusic(on stage: Stage, tone: URL) throws -> Node {
        let player = try stage.sandbox.spawn(
            "mpv",
            [
                "--no-config", "--script=\(DemoTools.mprisPlugin ?? "")", "--no-video", "--ao=pulse",
                "--audio-client-name=music-player", "--idle=yes", "--loop-file=inf", "--no-terminal", tone.path,
            ],
            extraEnvironment: stage.bus.environment.merging(["PULSE_PROP": "media.role=music"]) { $1 })
        timeline.say(.app, "mpv starts (--ao=pulse, media.role=music, the mpv-mpris plugin on the private bus)")
        var stream: Node?
        try waitUntil(timeout: .seconds(10), "mpv's stream appears") {
            stream = stage.observer.stream(ofProcess: player.pid)
            return stream != nil
        }
        let music = stream!
        try stage.observer.waitUntilLinked(music.name, to: ["headphones"])
        _ = try stage.waitForPlayer("Playing")
        // Readiness: the call must find mpv's session already matched to its player.
        try stage.waitForDaemon("has an MPRIS player")
        try stage.waitForDaemon("org.mpris.MediaPlayer2.mpv (pid")
        timeline.say(.graph, "music (\(music.name)) → headphones; playerctl: Playing")
        return music
    }

    /// A notification ducks the music with a ramp; its end brings the music back with another.
    private func duck(_ music: Node, on stage: Stage, tone: URL) throws {
        let observer = stage.observer
        let started = ContinuousClock.now
        let chime = try stage.sandbox.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime }"])
        timeline.say(.app, "a notification: pw-cat --media-role Notification")
        let (_, appeared) = try stage.waitForStream("chime")
        let ducked = try observer.waitForVolume(of: music.id, Self.duckLevel, "music")
        let down = observer.volumes(of: music.id, since: started)
        timeline.say(.graph, "music ducked: " + Self.ramp(down, from: 1.0, to: Self.duckLevel, after: appeared, cause: "the notification appeared"))
        guard observer.volume(of: observer.snapshot.node(named: "chime")?.id ?? 0) == 1.0 else {
            throw SandboxError.commandFailed("the notification itself was ducked")
        }
        timeline.note("the notification plays at full volume; the music stays linked to headphones")

        let ending = ContinuousClock.now
        chime.terminate()
        timeline.say(.app, "the notification ends")
        try observer.waitForVolume(of: music.id, 1.0, "music")
        let up = observer.volumes(of: music.id, since: max(ending, ducked))
        timeline.say(.graph, "music back: " + Self.ramp(up, from: Self.duckLevel, to: 1.0, after: ending, cause: "the notification ended"))
    }

    /// A call pauses mpv over MPRIS; its end plays it again (shouldResume).
    private func interrupt(_ music: Node, on stage: Stage, tone: URL) throws {
        let call = try stage.sandbox.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
        timeline.say(.app, "a call starts: pw-cat --media-role Communication")
        let (_, appeared) = try stage.waitForStream("call")
        try stage.observer.waitUntilLinked("call", to: ["headphones"])
        let paused = try stage.waitForPlayer("Paused")
        timeline.say(.check, "playerctl: mpv Paused, \(Self.milliseconds(paused - appeared)) ms after the call's stream appeared (the daemon pressed Pause over MPRIS)")

        let ended = ContinuousClock.now
        call.terminate()
        timeline.say(.app, "the call ends")
        let resumed = try stage.waitForPlayer("Playing")
        try stage.waitForDaemon("resuming org.mpris.MediaPlayer2.mpv")
        timeline.say(.check, "playerctl: mpv Playing again, \(Self.milliseconds(resumed - ended)) ms after the call ended (the interruption ended with shouldResume)")
        try stage.observer.waitUntilLinked(music.name, to: ["headphones"])
    }

    /// A game's effects (ambient) mix with the music: nobody is ducked or paused.
    private func mixGame(with music: Node, on stage: Stage, tone: URL) throws -> Node {
        _ = try stage.sandbox.play(role: "Game", file: tone, extraArguments: ["-P", "{ node.name = game }"])
        timeline.say(.app, "a game's effects: pw-cat --media-role Game")
        let (game, _) = try stage.waitForStream("game")
        try stage.observer.waitUntilLinked("game", to: ["headphones"])
        try stage.waitForDaemon("for 'pw-cat': ambient")
        // One round trip through PipeWire after the daemon's decision: any duck would show by now.
        _ = try stage.sandbox.run("pw-cli", ["info", "0"])
        let status = stage.playerStatus()
        let (musicVolume, gameVolume) = (stage.observer.volume(of: music.id), stage.observer.volume(of: game.id))
        guard status == "Playing", musicVolume == 1.0, gameVolume == 1.0 else {
            throw SandboxError.commandFailed("the game did not mix: mpv \(status), music volume \(musicVolume), game volume \(gameVolume)")
        }
        timeline.say(.graph, "game → headphones; it mixes: music volume \(Self.level(musicVolume)), mpv still Playing, game volume \(Self.level(gameVolume))")
        return game
    }

    /// Silent mode silences ambient sessions (the game), never the music.
    private func silence(_ game: Node, sparing music: Node, on stage: Stage) throws {
        let on = ContinuousClock.now
        try control(["silent", "on"], on: stage)
        timeline.say(.user, "audiosessionctl silent on")
        let silenced = try stage.observer.waitForVolume(of: game.id, 0, "game")
        let musicVolume = stage.observer.volume(of: music.id)
        guard musicVolume == 1.0 else { throw SandboxError.commandFailed("silent mode touched the music: \(musicVolume)") }
        timeline.say(.graph, "game volume 0.00 (\(Self.milliseconds(silenced - on)) ms); music untouched at \(Self.level(musicVolume))")

        let off = ContinuousClock.now
        try control(["silent", "off"], on: stage)
        timeline.say(.user, "audiosessionctl silent off")
        let restored = try stage.observer.waitForVolume(of: game.id, 1.0, "game")
        timeline.say(.graph, "game volume back to 1.00 (\(Self.milliseconds(restored - off)) ms)")
    }

    /// A low-latency app's preferences are forced in `settings` while it runs, released after.
    private func forceLowLatency(on stage: Stage) throws {
        let observer = stage.observer
        let short = try stage.sandbox.testTone(seconds: 1)
        let started = ContinuousClock.now
        let run = try stage.sandbox.spawn(
            controlPath,
            [
                "run", "--category", "playback", "--options", "mixWithOthers", "--prefer-io-buffer", "0.005",
                "--prefer-rate", "96000", "--", "pw-cat", "-p", "-P", "{ node.name = synth }", short.path,
            ],
            extraEnvironment: stage.bus.environment)
        timeline.say(.app, "audiosessionctl run --prefer-io-buffer 0.005 --prefer-rate 96000 -- pw-cat (a 1 s sound)")
        try waitUntil(timeout: .seconds(10), "settings force a quantum and 96 kHz") {
            observer.setting("clock.force-quantum") != "0" && observer.setting("clock.force-rate") == "96000"
        }
        let forced = ContinuousClock.now
        timeline.say(.graph, "settings: clock.force-quantum = \(observer.setting("clock.force-quantum")), clock.force-rate = \(observer.setting("clock.force-rate")) (\(Self.milliseconds(forced - started)) ms after run started)")
        let status = try run.waitForExit(timeout: .seconds(10))
        let exited = ContinuousClock.now
        timeline.say(.app, "pw-cat is done; run exits with status \(status)")
        try waitUntil(timeout: .seconds(5), "settings are back to 0") {
            observer.setting("clock.force-quantum") == "0" && observer.setting("clock.force-rate") == "0"
        }
        timeline.say(.graph, "settings: clock.force-quantum = 0, clock.force-rate = 0 (released as its session ended; seen \(Self.milliseconds(.now - exited)) ms after run exited)")
        guard status == 0 else { throw SandboxError.commandFailed("audiosessionctl run exited with \(status): \(run.errorOutput)") }
    }

    /// Runs `audiosessionctl` against the daemon on the private bus.
    private func control(_ arguments: [String], on stage: Stage) throws {
        try ManagedProcess.run(
            controlPath, arguments, environment: stage.sandbox.environment.merging(stage.bus.environment) { $1 },
            logDirectory: stage.sandbox.logDirectory)
    }

    /// "volume 1.00 → 0.30 in 9 steps over 246.1 ms, the first 12.0 ms after the notification appeared".
    static func ramp(
        _ samples: [DemoObserver.VolumeSample], from start: Float, to target: Float, after cause: ContinuousClock.Instant,
        cause what: String
    ) -> String {
        guard let first = samples.first, let last = samples.last(where: { $0.volume == target }) else {
            return "volume \(level(target))"
        }
        return "volume \(level(start)) → \(level(target)) in \(samples.count) steps over \(milliseconds(last.time - first.time)) ms, "
            + "the first \(milliseconds(first.time - cause)) ms after \(what)"
    }

    static func level(_ value: Float) -> String { String(format: "%.2f", value) }

    static func milliseconds(_ duration: Duration) -> String { DemoRoutesAct.milliseconds(duration) }
}
