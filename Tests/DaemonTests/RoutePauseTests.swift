import Foundation
import PipeWireSandbox
import Testing

/// Pause on unplug with a real media player: mpv (mpv-mpris) playing through pipewire-pulse on
/// a private session bus, under the real daemon; `playerctl` and `pw-link` are the oracles.
@Suite("Routes: a media player pauses on unplug, not on the user's choice", .serialized)
struct RoutePauseTests {
    /// A private PipeWire with pipewire-pulse, a private session bus, the daemon on both.
    final class Rig {
        let sandbox: PrivatePipeWire
        let bus: PrivateSessionBus
        let daemon: DaemonProcess
        let tone: URL

        init() throws {
            sandbox = try PrivatePipeWire()
            do {
                bus = try PrivateSessionBus()
            } catch {
                sandbox.stop()
                throw error
            }
            do {
                try sandbox.startPulse()
                daemon = try DaemonProcess(in: sandbox, environment: bus.environment)
                tone = try sandbox.testTone()
                try daemon.waitUntilReady()
            } catch {
                sandbox.stop()
                bus.stop()
                throw error
            }
        }

        /// Kills every process it started, by PID.
        func stop() {
            sandbox.stop()
            bus.stop()
        }

        func startPlayer() throws -> ManagedProcess {
            let plugin = ["/usr/lib/mpv-mpris/mpris.so", "/etc/mpv/scripts/mpris.so"]
                .first { FileManager.default.fileExists(atPath: $0) } ?? "/usr/lib/mpv-mpris/mpris.so"
            return try sandbox.spawn(
                "mpv",
                [
                    "--no-config", "--script=\(plugin)", "--no-video", "--ao=pulse", "--audio-client-name=music-player",
                    "--idle=yes", "--loop-file=inf", "--no-terminal", tone.path,
                ],
                extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PULSE_PROP": "media.role=music"])
        }

        func playerctl(_ arguments: [String]) throws -> String {
            try ManagedProcess.run(
                "playerctl", ["--player=mpv"] + arguments,
                environment: sandbox.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 },
                logDirectory: sandbox.logDirectory
            ).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func waitForStatus(_ expected: String, timeout: Duration = .seconds(10)) throws {
            var last = ""
            try waitUntil(timeout: timeout, "mpv is \(expected) (playerctl: '\(last)'); daemon log:\n\(daemon.log)") {
                last = (try? playerctl(["status"])) ?? "no player"
                return last == expected
            }
        }

        /// The pulse stream node of mpv.
        func streamName() throws -> String {
            var name: String?
            try waitUntil(timeout: .seconds(5), "mpv's stream appears") {
                name = try sandbox.dump().nodes.first {
                    $0.property("application.name") == "music-player" && $0.mediaClass == "Stream/Output/Audio"
                }?.name
                return name != nil
            }
            return try #require(name)
        }
    }

    @Test func mpvPausesWhenItsSinkGoesAndNotWhenTheUserPicksAnotherOne() throws {
        let rig = try Rig()
        defer { rig.stop() }
        try rig.sandbox.chooseDefaultSink("headphones")
        _ = try rig.startPlayer()
        try rig.waitForStatus("Playing")
        try rig.daemon.waitForLog("has an MPRIS player")
        let stream = try rig.streamName()
        try rig.sandbox.waitUntilLinked(stream, to: ["headphones"])

        // The user's choice: the music moves and keeps playing.
        try rig.sandbox.chooseDefaultSink("speaker")
        try rig.sandbox.waitUntilLinked(stream, to: ["speaker"])
        try rig.daemon.waitForLog("route change: override")
        #expect(try rig.playerctl(["status"]) == "Playing")
        #expect(!rig.daemon.log.contains("paused: its output went away"))

        // Its sink goes: mpv is paused over MPRIS, and nothing plays from the headphones meanwhile.
        let unplugged = ContinuousClock.now
        try rig.sandbox.destroyNode(named: "speaker")
        // Muted by policy until mpv confirms its pause: a window of a few ms, too short to catch
        // by polling reliably, so the daemon's own account is the oracle for it.
        try rig.daemon.waitForLog("paused: its output went away")
        try rig.daemon.waitForLog("pausing org.mpris.MediaPlayer2.mpv over MPRIS (its output went away)")
        let unlinked = milliseconds(since: unplugged)
        try rig.waitForStatus("Paused")
        // Paused, it goes back on its new route (silent), so play resumes there.
        try rig.sandbox.waitUntilLinked(stream, to: ["headphones"])
        try rig.daemon.waitForLog("its player stopped")
        print("route latency: sink removed → mpv unlinked \(unlinked) ms, → playerctl reads Paused \(milliseconds(since: unplugged)) ms")
        try rig.daemon.waitForLog("over MPRIS (its output went away)")
        #expect(LoggedRouteChange.all(in: rig.daemon.log).last?.reason == "oldDeviceUnavailable")

        // Its user presses play: it plays again, on the route it has now.
        _ = try rig.playerctl(["play"])
        try rig.waitForStatus("Playing")
        do {
            try rig.sandbox.waitUntilLinked(stream, to: ["headphones"])
        } catch {
            try? rig.daemon.log.write(toFile: "/tmp/routes-mpv-daemon.log", atomically: true, encoding: .utf8)
            throw error
        }
        // The engine sees it start again (active a second time), so it takes part in arbitration.
        let session = try #require(rig.daemon.log.firstMatch(of: /(session#\d+) for 'music-player'/)?.1)
        try rig.daemon.waitForLog("\(session) active", count: 2)
        #expect(try rig.daemon.terminate() == 0)
    }
}
