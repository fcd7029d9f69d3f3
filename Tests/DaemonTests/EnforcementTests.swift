import Foundation
import PipeWireGraph
import PipeWireSandbox
import Testing

/// The policy made real on a private PipeWire, for apps that know nothing of us: ducking,
/// interruption by unlinking, mixing, and nothing left behind when the daemon dies.
@Suite("audiosessiond enforces the policy", .serialized)
struct EnforcementTests {
    let duckLevel: Float = 0.3  // the shipped duck.level

    private func start() throws -> (PrivatePipeWire, DaemonProcess, VolumeWatcher, URL) {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        let watcher = try VolumeWatcher(sandbox)
        return (sandbox, daemon, watcher, try sandbox.testTone())
    }

    /// The daemon on a bus of its own, with a monitor of its decisions and `status --json`.
    private func startOnABus() throws -> (PrivatePipeWire, DaemonProcess, BusDecisions, SessionOracle, PrivateSessionBus, URL) {
        let sandbox = try PrivatePipeWire()
        let bus = try PrivateSessionBus()
        let daemon = try DaemonProcess(in: sandbox, environment: bus.environment)
        try daemon.waitUntilReady()
        let decisions = try BusDecisions(in: sandbox, bus: bus)
        return (sandbox, daemon, decisions, SessionOracle(sandbox: sandbox, busAddress: bus.address), bus, try sandbox.testTone())
    }

    private func play(_ role: String, as name: String, in sandbox: PrivatePipeWire, tone: URL) throws -> ManagedProcess {
        try sandbox.play(role: role, file: tone, extraArguments: ["-P", "{ node.name = \(name) }"])
    }

    @Test func notificationDucksMusicSmoothlyAndRestoresItExactly() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        _ = try play("Music", as: "music", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        let chime = try play("Notification", as: "chime", in: sandbox, tone: tone)
        try watcher.waitForVolume(of: "music", duckLevel)
        // A ramp, not a jump: values strictly between 1.0 and the duck level were written
        // (FadeTests hears it on the device).
        let down = watcher.volumes(of: "music")
        #expect(down.filter { $0 < 1.0 && $0 > duckLevel }.count >= 3, "ramp steps: \(down)")
        #expect(watcher.volume(of: "chime") ?? 1.0 == 1.0, "the ducker itself is not ducked")
        #expect(try sandbox.linkedDevices(of: "music") == ["headphones"], "a duck does not unlink")

        chime.terminate()
        try watcher.waitForVolume(of: "music", 1.0)
        let up = watcher.volumes(of: "music").drop { $0 != duckLevel }
        #expect(up.filter { $0 > duckLevel && $0 < 1.0 }.count >= 3, "unduck ramps too: \(Array(up))")
        #expect(try daemon.terminate() == 0)
    }

    /// A native stream that never set its volume, nor had it set by a session manager: on
    /// PipeWire 1.6 its converter reports no channel volumes at all, which the daemon took for
    /// "level not known yet", and the music played on at full level under every notification.
    /// Such a converter applies 1.0 on each channel: that is the user's level.
    @Test func aNativeStreamThatNeverSetItsVolumeIsDuckedAndGivenBackExactly() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        _ = try NativeStreamClient.play(role: "Music", prefix: "music", in: sandbox)
        try sandbox.waitUntilLinked("music-0", to: ["headphones"])
        let chime = try play("Notification", as: "chime", in: sandbox, tone: tone)
        do {
            try watcher.waitForVolume(of: "music-0", duckLevel)
        } catch {
            throw SandboxError.timeout("\(error); the daemon's log:\n\(daemon.log)")
        }
        chime.terminate()
        try watcher.waitForVolume(of: "music-0", 1.0)
        #expect(try daemon.terminate() == 0)
    }

    @Test func aStreamThatStartsDuringADuckIsDuckedFromItsStartAndStaysDucked() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        let chime = try play("Notification", as: "chime", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("chime", to: ["headphones"])
        // The new stream's format negotiation re-applies its own volume after we first duck it:
        // that must not be mistaken for the user's change.
        _ = try play("Music", as: "music", in: sandbox, tone: tone)
        try watcher.waitForVolume(of: "music", duckLevel)
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        chime.terminate()
        // Back to its own 1.0: had the echo been taken for its user's change, 0.3 would be
        // "its user's" volume, and it would stay there.
        try watcher.waitForVolume(of: "music", 1.0)
        #expect(try daemon.terminate() == 0)
    }

    /// The stream's own volume (an app's, or set with pw-cli) is never ours: one set during a
    /// duck is heard under the duck, and stays after it and after the daemon.
    @Test func aStreamsOwnVolumeSetDuringADuckIsKept() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        _ = try play("Music", as: "music", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        let chime = try play("Notification", as: "chime", in: sandbox, tone: tone)
        try watcher.waitForVolume(of: "music", duckLevel)
        let music = try #require(watcher.node("music"))
        try sandbox.run("pw-cli", ["set-param", String(music.id), "Props", "{ volume: 0.8 }"])
        try watcher.waitForVolume(of: "music", 0.8 * duckLevel)
        chime.terminate()
        try watcher.waitForVolume(of: "music", 0.8)
        #expect(try daemon.terminate() == 0)
        #expect(try sandbox.dump().node(named: "music")?.volume == 0.8, "shutdown does not touch a volume that is the stream's own")
        #expect(try sandbox.dump().node(named: "music")?.softFactor == 1)
    }

    @Test func pulseUserVolumeIsNeverTouchedByADuck() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        let player = try sandbox.paplay(role: "music", file: tone)
        var name = ""
        try waitUntil(timeout: .seconds(5), "the paplay stream appears") {
            name = watcher.graph.snapshot.streams.first { $0.properties["application.process.id"] == String(player.pid) }?.name ?? ""
            return !name.isEmpty
        }
        try sandbox.waitUntilLinked(name, to: ["headphones"])
        // The user turns the app down in their mixer: that is channelVolumes, the pulse volume.
        let index = try sandbox.run("pactl", ["list", "short", "sink-inputs"]).split(separator: "\t").first.map(String.init) ?? ""
        try sandbox.run("pactl", ["set-sink-input-volume", index, "50%"])
        try waitUntil(timeout: .seconds(5), "channelVolumes change") {
            watcher.node(name)?.props?.channelVolumes.first.map { $0 < 0.99 } ?? false
        }
        let userVolumes = try #require(watcher.node(name)?.props?.channelVolumes)
        let chime = try play("Notification", as: "chime", in: sandbox, tone: tone)
        try watcher.waitForVolume(of: name, duckLevel)
        #expect(watcher.node(name)?.props?.channelVolumes == userVolumes, "the duck is our factor, not the user's volume")
        chime.terminate()
        try watcher.waitForVolume(of: name, 1.0)
        #expect(watcher.node(name)?.props?.channelVolumes == userVolumes)
        #expect(try daemon.terminate() == 0)
    }

    @Test func aCallInterruptsMusicAndItResumesWhenTheCallEnds() throws {
        let (sandbox, daemon, decisions, oracle, bus, tone) = try startOnABus()
        defer { decisions.terminate(); bus.stop() }
        _ = try play("Music", as: "music", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        let music = try oracle.session(ofNodeNamed: "music").id
        let call = try play("Communication", as: "call", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("call", to: ["headphones"])
        try sandbox.waitUntilLinked("music", to: [])
        try waitUntil(timeout: .seconds(5), "music stops running") {
            try sandbox.dump().node(named: "music")?.state != "running"
        }
        call.terminate()
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        try waitUntil(timeout: .seconds(5), "music runs again") { try sandbox.dump().node(named: "music")?.state == "running" }
        try waitUntil(timeout: .seconds(5), "the music's interruption ended with shouldResume (so far \(decisions.kinds(of: music)))") {
            decisions.interruptionEndings(of: music) == [["shouldResume"]]
        }
        #expect(try daemon.terminate() == 0)
    }

    @Test func aStreamThatStartsDuringACallIsHeldUntilItEnds() throws {
        let (sandbox, daemon, decisions, oracle, bus, tone) = try startOnABus()
        defer { decisions.terminate(); bus.stop() }
        let call = try play("Communication", as: "call", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("call", to: ["headphones"])
        _ = try play("Music", as: "music", in: sandbox, tone: tone)
        let music = try oracle.session(ofNodeNamed: "music").id
        try waitUntil(timeout: .seconds(5), "the music's session is interrupted by the call (so far \(decisions.kinds(of: music)))") {
            decisions.kinds(of: music).contains("interruptionBegan")
        }
        #expect(try sandbox.linkedDevices(of: "music").isEmpty, "never linked, not even for a moment")
        call.terminate()
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        #expect(try daemon.terminate() == 0)
    }

    @Test func gameEffectsMixWithMusic() throws {
        let (sandbox, daemon, decisions, oracle, bus, tone) = try startOnABus()
        defer { decisions.terminate(); bus.stop() }
        let watcher = try VolumeWatcher(sandbox)
        _ = try play("Music", as: "music", in: sandbox, tone: tone)
        _ = try play("Game", as: "game", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        try sandbox.waitUntilLinked("game", to: ["headphones"])
        let game = try oracle.session(ofNodeNamed: "game")
        #expect(game.category == "ambient", "\(game.summary)")
        let music = try oracle.session(ofNodeNamed: "music").id
        #expect(!decisions.kinds(of: music).contains("interruptionBegan"), "the game does not interrupt the music")
        _ = try sandbox.run("pw-cli", ["ls", "Node"])
        #expect(watcher.volume(of: "music") ?? 1.0 == 1.0)
        #expect(try sandbox.linkedDevices(of: "music") == ["headphones"])
        #expect(try daemon.terminate() == 0)
    }

    @Test func sigtermWhileDuckingRestoresTheVolume() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        _ = try play("Music", as: "music", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        _ = try play("Notification", as: "chime", in: sandbox, tone: tone)
        try watcher.waitForVolume(of: "music", duckLevel)
        #expect(try daemon.terminate() == 0)
        try watcher.waitForVolume(of: "music", 1.0)
    }

    @Test func sigkillWhileDuckingThenARestartRestoresTheVolume() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        _ = try play("Music", as: "music", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        let chime = try play("Notification", as: "chime", in: sandbox, tone: tone)
        try watcher.waitForVolume(of: "music", duckLevel)
        kill(daemon.process.pid, SIGKILL)
        _ = try daemon.process.waitForExit(timeout: .seconds(5))
        chime.terminate()
        // Dead daemon: its duck is still there (that is the danger) ...
        #expect(watcher.volume(of: "music") == duckLevel)
        // ... until the next start reads its journal and undoes it.
        let next = try DaemonProcess(in: sandbox)
        try watcher.waitForVolume(of: "music", 1.0)
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        #expect(try next.terminate() == 0)
    }

    /// A held stream stays off its device even when something links it (a patchbay, or one of
    /// our own links that was still being created when the hold came).
    @Test func aHeldStreamLinkedBySomeoneElseIsTakenOffAgain() throws {
        let (sandbox, daemon, _, tone) = try start()
        _ = try play("Music", as: "music", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        _ = try play("Communication", as: "call", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("music", to: [])
        do {
            _ = try sandbox.run("pw-link", ["music:output_FL", "headphones:playback_FL"])
        } catch SandboxError.commandFailed(let message) where sandbox.installation != nil && message.contains("Invalid argument") {
            // PipeWire 1.4 refuses to link a stream nobody links (no format to negotiate):
            // there is nothing to take off.
        }
        try sandbox.waitUntilLinked("music", to: [])
        #expect(try daemon.terminate() == 0)
    }

    @Test func pipeWireRestartMidInterruptionLetsTheStreamPlayAgain() throws {
        let (sandbox, daemon, _, tone) = try start()
        _ = try play("Music", as: "music", in: sandbox, tone: tone)
        _ = try play("Communication", as: "call", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("call", to: ["headphones"])
        try sandbox.waitUntilLinked("music", to: [])
        try sandbox.restart()
        try daemon.waitUntilReady(count: 2)
        // Every client died with PipeWire; the music player starts again, alone: it plays.
        _ = try play("Music", as: "music", in: sandbox, tone: tone)
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        #expect(try daemon.terminate() == 0)
    }
}

/// Hardware wishes an app states on its stream node, without the session API.
@Suite("audiosessiond: quantum from node.latency", .serialized)
struct NodeLatencyTests {
    @Test func aLowLatencyStreamForcesItsQuantumWhileItPlaysAndNotAfter() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        let tone = try sandbox.testTone()
        func forcedQuantum() throws -> String? {
            try sandbox.dump().objects.first { $0.type == "PipeWire:Interface:Metadata" && $0.property("metadata.name") == "settings" }?
                .metadata.first { $0["key"] as? String == "clock.force-quantum" }.map { "\($0["value"] ?? "")" }
        }
        // An ordinary player asks for 100 ms (pw-cat's default): PipeWire's own business.
        let player = try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        #expect(try forcedQuantum() == "0")
        player.terminate()
        // A DAW-like stream asks for 64 frames: forced while it plays ...
        let daw = try sandbox.play(role: "Production", file: tone, extraArguments: ["--latency", "64", "-P", "{ node.name = daw }"])
        try waitUntil(timeout: .seconds(5), "clock.force-quantum is 64") { try forcedQuantum() == "64" }
        // ... and released when it is gone.
        daw.terminate()
        try waitUntil(timeout: .seconds(5), "clock.force-quantum is back to 0") { try forcedQuantum() == "0" }
        #expect(try daemon.terminate() == 0)
    }
}

extension NodeLatencyTests {
    /// The private PipeWire allows 44.1 to 96 kHz (`clock.allowed-rates`): a 192 kHz wish is not
    /// forced on a graph that cannot take it; the nearest rate it takes is.
    @Test func aRateTheGraphDoesNotAllowIsNotForced() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()  // the settings' allowed rates are in its first view of the graph
        let tone = try sandbox.testTone()
        // PIPEWIRE_PROPS, because pw-cat sets node.rate from the file over its own -P.
        let daw = try sandbox.spawn(
            "pw-cat", ["-p", "--media-role", "Production", "--latency", "64", tone.path],
            extraEnvironment: ["PIPEWIRE_PROPS": "{ node.name = daw node.rate = 1/192000 }"])
        var forcedRate: String?
        try waitUntil(timeout: .seconds(5), "clock.force-rate is the nearest allowed rate (now \(forcedRate ?? "none"))") {
            forcedRate = try sandbox.dump().objects.first {
                $0.type == "PipeWire:Interface:Metadata" && $0.property("metadata.name") == "settings"
            }?.metadata.first { $0["key"] as? String == "clock.force-rate" }.map { "\($0["value"] ?? "")" }
            return forcedRate == "96000"
        }
        // 64 frames at 48 kHz is 1.33 ms: at 96 kHz that is 128 frames.
        try waitUntil(timeout: .seconds(5), "clock.force-quantum is 128") {
            try sandbox.dump().objects.first {
                $0.type == "PipeWire:Interface:Metadata" && $0.property("metadata.name") == "settings"
            }?.metadata.first { $0["key"] as? String == "clock.force-quantum" }.map { "\($0["value"] ?? "")" } == "128"
        }
        daw.terminate()
        #expect(try daemon.terminate() == 0)
    }
}
