import Foundation
import PipeWireGraph
import PipeWireSandbox
import Testing

/// Ducking on a PipeWire that ramps volumes itself (1.4.2 from bookworm-backports, fetched by
/// scripts/fetch-pipewire-backport.sh into .build-pipewire-1.4/): one `Props` write per duck
/// and per restore, carried out by the stream's own converter, heard as a ramp on the device.
/// Without the prefix these tests fail and say how to fetch it.
@Suite("audiosessiond on PipeWire 1.4: native volume ramps", .serialized)
struct NativeRampTests {
    /// Not the shipped 0.3: PipeWire 1.4.2's converter stops 1.0 → 0.2 at 0.216 and 0.2 → 1.0
    /// at 0.984 (a step short), so only the daemon's settling write makes these exact.
    let duckLevel: Float = 0.2
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func start() throws -> (PrivatePipeWire, DaemonProcess, VolumeWatcher, URL) {
        let installation = try PipeWireInstallation.backport(packageRoot: Self.packageRoot)
        let sandbox = try PrivatePipeWire(installation: installation)
        let rules = sandbox.configDirectory.appendingPathComponent("audiosession/policy-rules.d")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try "audiosession.settings = {\n    duck.level = \(duckLevel)\n}\n".write(
            to: rules.appendingPathComponent("90-native-ramp-test.conf"), atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitForLog("attached to PipeWire")
        #expect(daemon.log.contains("PipeWire server 1.4.2"), "the daemon runs against the 1.4.2 server")
        return (sandbox, daemon, try VolumeWatcher(sandbox), try sandbox.testTone())
    }

    /// Music from the installation's own `pw-cat`: a pw_stream's converter runs in its client,
    /// so it must be 1.4.2 too. It logs the ramps it is asked for (audioconvert at info level).
    private func playMusic(in sandbox: PrivatePipeWire, tone: URL) throws -> ManagedProcess {
        let music = try sandbox.spawnInstalled(
            "pw-cat", ["-p", "--media-role", "Music", "-P", "{ node.name = music }", tone.path],
            extraEnvironment: ["PIPEWIRE_DEBUG": "E,spa.audioconvert:I"])
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        return music
    }

    /// A notification that ducks without adding sound of its own to what the tap hears: it
    /// plays (a notification ducks only while it is heard) on the other device.
    private func chimeElsewhere(in sandbox: PrivatePipeWire) throws -> ManagedProcess {
        try sandbox.play(
            role: "Notification", file: try sandbox.testTone(), extraArguments: ["--target", "speaker", "-P", "{ node.name = chime }"])
    }

    /// Waits until the last `windows` peaks sit at `level` (relative `tolerance`).
    private func waitForSteadyLevel(
        _ tap: MonitorTap, _ level: Double, tolerance: Double, windows: Int = 20, timeout: Duration = .seconds(5)
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

    private func occurrences(of text: String, in log: String) -> Int { log.components(separatedBy: text).count - 1 }

    @Test func aDuckAndItsRestoreAreOneRampingWriteEachAndTheDeviceHearsRampsThatEndExactly() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        let music = try playMusic(in: sandbox, tone: tone)
        let tap = try MonitorTap(sandbox, device: "headphones")
        defer { tap.stop() }
        try waitUntil(timeout: .seconds(5), "the tap hears the music") { tap.peaks().suffix(20).count == 20 && tap.peaks().suffix(20).allSatisfy { $0 > 0.05 } }
        let playing = tap.peaks()
        let full = playing.suffix(20).sorted()[10]

        let chime = try chimeElsewhere(in: sandbox)
        try watcher.waitForVolume(of: "music", duckLevel)
        // Exactly the duck level, heard: the converter's ramp ended a step short, the settling write fixed it.
        try waitForSteadyLevel(tap, full * Double(duckLevel), tolerance: 0.005)
        chime.terminate()
        try watcher.waitForVolume(of: "music", 1.0)
        try waitForSteadyLevel(tap, full, tolerance: 0.005)

        // One write each way: the stream's Props only ever showed its base and the duck level ...
        let seen = watcher.volumes(of: "music")
        #expect(seen.allSatisfy { $0 == 1.0 || $0 == duckLevel }, "no stepped writes: \(seen)")
        #expect(occurrences(of: "native volume ramp", in: daemon.log) == 2, "daemon log:\n\(daemon.log)")
        // ... and each carried the ramp keys to the converter, which made one ramp of each.
        let converter = music.errorOutput
        #expect(occurrences(of: "generating ramp down sequence", in: converter) == 1, "pw-cat log:\n\(converter)")
        #expect(occurrences(of: "generating ramp up sequence", in: converter) == 1, "pw-cat log:\n\(converter)")
        #expect(converter.contains("volume ramp time 250") && converter.contains("volume ramp time 500"))

        // Heard as ramps over the policy's times, not jumps: 10 ms windows, so the middle 80 %
        // of the 250 ms duck is about 20 windows, of the 500 ms restore about 40.
        let peaks = tap.peaks()
        let down = try #require(
            LevelTransition(in: peaks, from: full, to: full * Double(duckLevel), after: playing.count - 20),
            "no duck in \(peaks)")
        #expect(down.windows >= 15 && down.windows <= 30, "duck: \(down): \(peaks[down.startIndex...].prefix(down.windows + 5))")
        #expect(down.intermediateWindows >= 12, "duck: \(down)")
        let up = try #require(
            LevelTransition(in: peaks, from: full * Double(duckLevel), to: full, after: down.startIndex + down.windows),
            "no restore in \(peaks)")
        #expect(up.windows >= 30 && up.windows <= 55, "restore: \(up): \(peaks[up.startIndex...].prefix(up.windows + 5))")
        #expect(up.intermediateWindows >= 25, "restore: \(up)")
        #expect(!daemon.log.contains("volume changed by someone else"))
        #expect(try daemon.terminate() == 0)
    }

    /// PipeWire 1.4.2's converter drops a volume set while its ramp runs (the Props say 0.8,
    /// the device plays the ramp's end): the daemon's settling write makes the user's change heard.
    @Test func aUsersVolumeChangeDuringANativeDuckWinsAndIsHeard() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        _ = try playMusic(in: sandbox, tone: tone)
        let tap = try MonitorTap(sandbox, device: "headphones")
        defer { tap.stop() }
        try waitUntil(timeout: .seconds(5), "the tap hears the music") { tap.peaks().suffix(20).count == 20 && tap.peaks().suffix(20).allSatisfy { $0 > 0.05 } }
        let full = tap.peaks().suffix(20).sorted()[10]
        let chime = try chimeElsewhere(in: sandbox)
        try watcher.waitForVolume(of: "music", duckLevel)
        // The user turns the music to 0.8 while the duck's ramp may still run.
        let id = try #require(watcher.node("music")).id
        try sandbox.run("pw-cli", ["set-param", String(id), "Props", "{ volume: 0.8 }"])
        try watcher.waitForVolume(of: "music", 0.8)
        try daemon.waitForLog("volume changed by someone else while ducked")
        chime.terminate()
        try daemon.waitForLog("gain → 1.0")
        // Theirs stays, in the Props and on the device, for a whole second after the unduck
        // (longer than any ramp and its settling write).
        try waitForSteadyLevel(tap, full * 0.8, tolerance: 0.01, windows: 100)
        #expect(watcher.volume(of: "music") == 0.8)
        #expect(try daemon.terminate() == 0)
        #expect(watcher.volume(of: "music") == 0.8, "shutdown does not touch a volume that is the user's")
    }

    /// A notification shorter than the duck's ramp: the converter takes no new ramp while one
    /// runs, so the restore waits for the duck's and is still a ramp that ends exactly.
    @Test func anUnduckDuringTheDucksRampWaitsForItAndStillRampsAndEndsExactly() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        let music = try playMusic(in: sandbox, tone: tone)
        let tap = try MonitorTap(sandbox, device: "headphones")
        defer { tap.stop() }
        try waitUntil(timeout: .seconds(5), "the tap hears the music") { tap.peaks().suffix(20).count == 20 && tap.peaks().suffix(20).allSatisfy { $0 > 0.05 } }
        let playing = tap.peaks()
        let full = playing.suffix(20).sorted()[10]
        let chime = try chimeElsewhere(in: sandbox)
        try watcher.waitForVolume(of: "music", duckLevel)
        chime.terminate()  // within the duck's 250 ms
        try watcher.waitForVolume(of: "music", 1.0)
        try waitForSteadyLevel(tap, full, tolerance: 0.005)
        let converter = music.errorOutput
        #expect(!converter.contains("try again"), "no ramp was refused: \(converter)")
        #expect(occurrences(of: "generating ramp", in: converter) == 2, "pw-cat log:\n\(converter)")
        let peaks = tap.peaks()
        let lowest = peaks[(playing.count - 20)...].min() ?? 0
        // Wherever the duck got to, the way back up is a ramp, not a jump.
        let up = try #require(
            LevelTransition(
                in: peaks, from: lowest, to: full, after: peaks[(playing.count - 20)...].firstIndex(of: lowest) ?? 0),
            "no restore in \(peaks)")
        #expect(up.intermediateWindows >= 20, "restore: \(up)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func aStreamOfAnOlderLibraryIsSteppedOnTheNewServer() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        // The system's 0.3.65 pw-cat (by path: `play` runs the installation's): its converter
        // would ignore the ramp keys and jump.
        _ = try sandbox.spawn("/usr/bin/pw-cat", ["-p", "--media-role", "Music", "-P", "{ node.name = music }", tone.path])
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        let chime = try chimeElsewhere(in: sandbox)
        try watcher.waitForVolume(of: "music", duckLevel)
        let down = watcher.volumes(of: "music")
        #expect(down.filter { $0 < 1.0 && $0 > duckLevel }.count >= 3, "stepped: \(down)")
        chime.terminate()
        try watcher.waitForVolume(of: "music", 1.0)
        #expect(!daemon.log.contains("native volume ramp"))
        #expect(try daemon.terminate() == 0)
    }

    @Test func aPulseClientsStreamRampsNativelyInTheNewPipeWirePulse() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        // paplay's stream is a pw_stream inside pipewire-pulse, which runs from the installation.
        let player = try sandbox.paplay(role: "music", file: tone)
        var name = ""
        try waitUntil(timeout: .seconds(5), "the paplay stream appears") {
            name = watcher.graph.snapshot.streams.first { $0.properties["application.process.id"] == String(player.pid) }?.name ?? ""
            return !name.isEmpty
        }
        try sandbox.waitUntilLinked(name, to: ["headphones"])
        let chime = try chimeElsewhere(in: sandbox)
        try watcher.waitForVolume(of: name, duckLevel)
        chime.terminate()
        try watcher.waitForVolume(of: name, 1.0)
        let seen = watcher.volumes(of: name)
        #expect(seen.allSatisfy { $0 == 1.0 || $0 == duckLevel }, "no stepped writes: \(seen)")
        #expect(occurrences(of: "native volume ramp", in: daemon.log) == 2, "daemon log:\n\(daemon.log)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func sigtermWhileNativelyDuckedRestoresTheBaseVolume() throws {
        let (sandbox, daemon, watcher, tone) = try start()
        _ = try playMusic(in: sandbox, tone: tone)
        _ = try chimeElsewhere(in: sandbox)
        try watcher.waitForVolume(of: "music", duckLevel)
        try daemon.waitForLog("native volume ramp")
        #expect(try daemon.terminate() == 0)
        try watcher.waitForVolume(of: "music", 1.0)
    }

    /// A daemon in the middle of a native duck `milliseconds` long: music heard on the
    /// headphones at `full`, the chime that ducks it still playing elsewhere.
    private struct MidRamp {
        let sandbox: PrivatePipeWire
        let daemon: DaemonProcess
        let watcher: VolumeWatcher
        let tap: MonitorTap
        let full: Double
        let chime: ManagedProcess
    }

    private func duckingSlowly(over milliseconds: Int) throws -> MidRamp {
        let (sandbox, daemon, watcher, tone) = try start()
        let rules = sandbox.configDirectory.appendingPathComponent("audiosession/policy-rules.d")
        try "audiosession.settings = {\n    duck.ramp-ms = \(milliseconds)\n}\n".write(
            to: rules.appendingPathComponent("91-slow-duck.conf"), atomically: true, encoding: .utf8)
        try daemon.waitForLog("rules reloaded")
        _ = try playMusic(in: sandbox, tone: tone)
        let tap = try MonitorTap(sandbox, device: "headphones")
        try waitUntil(timeout: .seconds(5), "the tap hears the music") { tap.peaks().suffix(20).count == 20 && tap.peaks().suffix(20).allSatisfy { $0 > 0.05 } }
        let full = tap.peaks().suffix(20).sorted()[10]
        let chime = try chimeElsewhere(in: sandbox)
        try daemon.waitForLog("native volume ramp to \(duckLevel) over \(milliseconds) ms")
        // The write has reached the server (its Props show the ramp's end), so the journal has
        // it: it is written before anything of the step is sent. A SIGKILL right after the log
        // line could otherwise come before either, and leave nothing to undo.
        try watcher.waitForVolume(of: "music", duckLevel)
        return MidRamp(sandbox: sandbox, daemon: daemon, watcher: watcher, tap: tap, full: full, chime: chime)
    }

    /// A SIGKILL in the middle of a native duck: the next start restores the base while the
    /// dead daemon's ramp still runs in the stream's converter, which does not hear it (and
    /// its Props may show the ramp's end again). Once that ramp would have ended, the base is
    /// written again: heard, not only shown.
    @Test func sigkillMidRampThenARestartRestoresTheBaseHeard() throws {
        let ramp = try duckingSlowly(over: 2000)
        defer { ramp.tap.stop() }
        kill(ramp.daemon.process.pid, SIGKILL)
        _ = try ramp.daemon.process.waitForExit(timeout: .seconds(5))
        ramp.chime.terminate()

        let next = try DaemonProcess(in: ramp.sandbox)
        try next.waitForLog("undoing what a previous run left behind")
        try next.waitForLog("the previous run's ramp has ended; volume 1.0 written again", timeout: .seconds(5))
        try waitForSteadyLevel(ramp.tap, ramp.full, tolerance: 0.005, windows: 50)
        #expect(ramp.watcher.volume(of: "music") == 1.0)
        #expect(try next.terminate() == 0)
    }

    /// SIGTERM in the middle of a native duck: the base the daemon restores on its way out
    /// is heard, not only shown (the converter does not hear a volume written while its ramp
    /// runs, so the exit waits for the ramp and writes it again).
    @Test func sigtermMidRampRestoresTheBaseHeard() throws {
        let ramp = try duckingSlowly(over: 1000)
        defer { ramp.tap.stop() }
        #expect(try ramp.daemon.terminate() == 0)
        ramp.chime.terminate()
        // Links die with the daemon (it is the only session manager here): the next one links
        // the music again, and has nothing to undo.
        let next = try DaemonProcess(in: ramp.sandbox)
        try next.waitForLog("attached to PipeWire")
        try waitForSteadyLevel(ramp.tap, ramp.full, tolerance: 0.005, windows: 50)
        #expect(!next.log.contains("left behind"))
        #expect(try next.terminate() == 0)
    }
}
