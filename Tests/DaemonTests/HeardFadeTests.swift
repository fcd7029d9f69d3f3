import Foundation
import PipeWireGraph
import PipeWireSandbox
import Testing

/// Ducks as the device hears them, on the stack under test (PipeWire 0.3.65, or 1.4.2 with its
/// own clients under `AUDIOSESSION_TEST_STACK=1.4`): the daemon steps every fade itself, in the
/// converter's soft volumes, so a fade can turn around at any step, ends exactly on its target,
/// and never touches what the user set or what WirePlumber saves.
@Suite("audiosessiond's fades, heard on the device", .serialized)
struct HeardFadeTests {
    let duckLevel: Float = 0.3  // the shipped duck.level

    private struct Stage {
        let sandbox: PrivatePipeWire
        let daemon: DaemonProcess
        let watcher: VolumeWatcher
        let tap: MonitorTap
        /// The music's level on the device before any duck.
        let full: Double
    }

    /// Music on the headphones, heard by a tap, and the daemon; `rules` are extra settings.
    private func musicPlaying(rules: String? = nil) throws -> Stage {
        let sandbox = try PrivatePipeWire()
        if let rules {
            let directory = sandbox.configDirectory.appendingPathComponent("audiosession/policy-rules.d")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try "audiosession.settings = {\n\(rules)\n}\n".write(
                to: directory.appendingPathComponent("90-fade-test.conf"), atomically: true, encoding: .utf8)
        }
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose"])
        try daemon.waitUntilReady()
        let watcher = try VolumeWatcher(sandbox)
        try sandbox.play(role: "Music", file: try sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        do {
            try sandbox.waitUntilLinked("music", to: ["headphones"])
        } catch {
            throw SandboxError.timeout("\(error); the daemon's log:\n\(daemon.log)\npw-dump:\n\((try? sandbox.run("pw-dump", [])) ?? "")")
        }
        let tap = try MonitorTap(sandbox, device: "headphones")
        try waitUntil(timeout: .seconds(5), "the tap hears the music") {
            let recent = tap.peaks().suffix(20)
            return recent.count == 20 && recent.allSatisfy { $0 > 0.05 }
        }
        return Stage(sandbox: sandbox, daemon: daemon, watcher: watcher, tap: tap, full: tap.peaks().suffix(20).sorted()[10])
    }

    /// A notification that ducks without adding sound of its own to what the tap hears: it
    /// plays (a notification ducks only while it is heard) on the other device.
    private func chime(in sandbox: PrivatePipeWire, name: String = "chime") throws -> ManagedProcess {
        try sandbox.play(
            role: "Notification", file: try sandbox.testTone(), extraArguments: ["--target", "speaker", "-P", "{ node.name = \(name) }"])
    }

    /// Waits until the last `windows` peaks sit at `level` (relative `tolerance`).
    private func waitForSteadyLevel(
        _ tap: MonitorTap, _ level: Double, tolerance: Double = 0.005, windows: Int = 20, timeout: Duration = .seconds(5)
    ) throws {
        do {
            try waitUntil(timeout: timeout, "the device plays at \(level) ± \(tolerance * 100) %") {
                let recent = tap.peaks().suffix(windows)
                return recent.count == windows && recent.allSatisfy { abs($0 - level) <= level * tolerance }
            }
        } catch {
            throw SandboxError.timeout("\(error); the last peaks: \(tap.peaks().suffix(windows))")
        }
    }

    /// The music's Props as the user and WirePlumber see them: its own volume and channel
    /// volumes untouched, whatever we did.
    private func expectUsersLevelUntouched(_ stage: Stage, channels: Double = 1, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let music = try #require(try stage.sandbox.dump().node(named: "music"), sourceLocation: sourceLocation)
        #expect(music.volume == 1, "its own volume: \(music.props ?? [:])", sourceLocation: sourceLocation)
        #expect(music.channelVolumes?.allSatisfy { abs($0 - channels) < 1e-6 } == true, "its user's volume: \(music.props ?? [:])", sourceLocation: sourceLocation)
        #expect(music.mute == false, sourceLocation: sourceLocation)
    }

    @Test func aDuckAndItsRestoreAreHeardAsRampsThatEndExactlyAndTouchNothingOfTheUsers() throws {
        let stage = try musicPlaying()
        defer { stage.tap.stop() }
        let before = stage.tap.peaks().count
        let chime = try chime(in: stage.sandbox)
        try stage.watcher.waitForVolume(of: "music", duckLevel)
        try waitForSteadyLevel(stage.tap, stage.full * Double(duckLevel))
        try expectUsersLevelUntouched(stage)
        chime.terminate()
        try stage.watcher.waitForVolume(of: "music", 1.0)
        try waitForSteadyLevel(stage.tap, stage.full)
        try expectUsersLevelUntouched(stage)

        // Heard as ramps over the policy's times, not jumps: 10 ms windows, so the middle 80 %
        // of the 250 ms duck is about 20 windows, of the 500 ms restore about 40.
        let peaks = stage.tap.peaks()
        let down = try #require(
            LevelTransition(in: peaks, from: stage.full, to: stage.full * Double(duckLevel), after: before - 20), "no duck in \(peaks)")
        // What the daemon wrote, and when, for a fade heard otherwise (its --verbose log: a step
        // that came late says whether the daemon waited for a CPU).
        // A client that missed its cycle (pw-top's ERR) is heard as silence, whatever the fade:
        // the music's player and the tap fill their buffers on their main loops.
        let written = {
            "the volumes seen: \(stage.watcher.volumes(of: "music")); the daemon's log:\n\(stage.daemon.log)\nthe server's xrun counts (pw-top):\n\((try? stage.sandbox.run("pw-top", ["-b", "-n", "2"])) ?? "pw-top failed")"
        }
        #expect(down.windows >= 12 && down.windows <= 32, "duck: \(down): \(peaks[down.startIndex...].prefix(down.windows + 5)); \(written())")
        #expect(down.intermediateWindows >= 10, "duck: \(down)")
        let up = try #require(
            LevelTransition(in: peaks, from: stage.full * Double(duckLevel), to: stage.full, after: down.startIndex + down.windows),
            "no restore in \(peaks)")
        #expect(up.windows >= 28 && up.windows <= 57, "restore: \(up): \(peaks[up.startIndex...].prefix(up.windows + 5)); \(written())")
        #expect(up.intermediateWindows >= 25, "restore: \(up)")
        #expect(try stage.daemon.terminate() == 0)
    }

    /// A notification that ends within the duck's ramp: the restore starts at once from the
    /// level the duck reached (no waiting for the duck's ramp to end), and ends exactly on the
    /// user's volume. Several in a row, as notifications come.
    @Test func notificationsShorterThanTheDucksRampTurnItAroundAndLeaveTheMusicExactlyAtItsLevel() throws {
        let stage = try musicPlaying(rules: "    duck.ramp-ms = 1000")
        defer { stage.tap.stop() }
        for round in 1...5 {
            let chime = try chime(in: stage.sandbox, name: "chime-\(round)")
            try waitUntil(timeout: .seconds(5), "round \(round): the duck has begun") {
                (stage.watcher.volume(of: "music") ?? 1) < 0.95
            }
            chime.terminate()
        }
        try stage.watcher.waitForVolume(of: "music", 1.0)
        try waitForSteadyLevel(stage.tap, stage.full, windows: 50)
        try expectUsersLevelUntouched(stage)
        // Each duck turned back from where it was: the volumes seen only ever go down while a
        // chime plays and up after, and never below where a 1 s ramp gets in a few hundred ms.
        let seen = stage.watcher.volumes(of: "music")
        #expect(seen.min().map { $0 > 0.5 } == true, "no duck reached its end: \(seen)")
        // None of our ramp's steps was taken for the user's change: the user's volume and our
        // share are as they were (expectUsersLevelUntouched), and the level is the full one.
        #expect(try stage.daemon.terminate() == 0)
    }

    /// The user turns the music down in the middle of a duck: theirs is the music's volume from
    /// then on (the mixer shows it, it is heard), and the duck goes on over it until the
    /// notification ends.
    @Test func aUsersVolumeChangeDuringADuckIsHeardAndTheDuckGoesOnOverIt() throws {
        let stage = try musicPlaying()
        defer { stage.tap.stop() }
        let chime = try chime(in: stage.sandbox)
        try stage.watcher.waitForVolume(of: "music", duckLevel)
        let id = try #require(stage.watcher.node("music")).id
        try stage.sandbox.run("pw-cli", ["set-param", String(id), "Props", "{ channelVolumes: [ 0.5, 0.5 ] }"])
        try waitForSteadyLevel(stage.tap, stage.full * 0.5 * Double(duckLevel), tolerance: 0.01)
        chime.terminate()
        try waitForSteadyLevel(stage.tap, stage.full * 0.5, tolerance: 0.01, windows: 50)
        try expectUsersLevelUntouched(stage, channels: 0.5)
        #expect(try stage.daemon.terminate() == 0)
        // (Its links went with it: nothing is heard now, but the Props stay.)
        try expectUsersLevelUntouched(stage, channels: 0.5)
        #expect(try stage.sandbox.dump().node(named: "music")?.softFactor == 1, "our share is gone")
    }

    /// SIGTERM in the middle of a slow duck: the level the user had is heard again.
    @Test func sigtermMidRampGivesTheLevelBackHeard() throws {
        let stage = try musicPlaying(rules: "    duck.ramp-ms = 1000")
        defer { stage.tap.stop() }
        let chime = try chime(in: stage.sandbox)
        try waitUntil(timeout: .seconds(5), "the duck has begun") { (stage.watcher.volume(of: "music") ?? 1) < 0.9 }
        #expect(try stage.daemon.terminate() == 0)
        chime.terminate()
        // Nothing left behind for a next start to undo: the user's volume, and no share of ours.
        try expectUsersLevelUntouched(stage)
        #expect(try stage.sandbox.dump().node(named: "music")?.softFactor == 1, "our share is gone with the daemon")
        // The daemon was the only session manager: its links went with it. The next one links
        // the music again.
        let next = try DaemonProcess(in: stage.sandbox)
        try next.waitUntilReady()
        try waitForSteadyLevel(stage.tap, stage.full, windows: 50)
        try expectUsersLevelUntouched(stage)
        #expect(try next.terminate() == 0)
    }

    /// SIGKILL in the middle of a duck: the next start gives the level back, heard.
    @Test func sigkillMidDuckThenARestartGivesTheLevelBackHeard() throws {
        let stage = try musicPlaying()
        defer { stage.tap.stop() }
        let chime = try chime(in: stage.sandbox)
        try stage.watcher.waitForVolume(of: "music", duckLevel)
        kill(stage.daemon.process.pid, SIGKILL)
        _ = try stage.daemon.process.waitForExit(timeout: .seconds(5))
        chime.terminate()
        let next = try DaemonProcess(in: stage.sandbox)
        try next.waitUntilReady()
        try stage.watcher.waitForVolume(of: "music", 1.0)
        try waitForSteadyLevel(stage.tap, stage.full, windows: 50)
        try expectUsersLevelUntouched(stage)
        #expect(try next.terminate() == 0)
    }
}
