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
        let decisions = try BusDecisions(in: rig.sandbox, bus: rig.bus)
        defer { decisions.terminate() }
        _ = try rig.startPlayer()
        try rig.waitForStatus("Playing")
        let oracle = SessionOracle(sandbox: rig.sandbox, busAddress: rig.bus.address)
        let stream = try rig.streamName()
        var player: SessionOracle.Session?
        try waitUntil(timeout: .seconds(10), "mpv's session has its MPRIS player") {
            player = try oracle.session(ofNodeNamed: stream)
            return player?.hasMPRISPlayer == true
        }
        let music = try #require(player).id
        try rig.sandbox.waitUntilLinked(stream, to: ["headphones"])

        // The user's choice: the music moves and keeps playing.
        try rig.sandbox.chooseDefaultSink("speaker")
        try rig.sandbox.waitUntilLinked(stream, to: ["speaker"])
        #expect(try decisions.waitForChange("override").session == music)
        #expect(try rig.playerctl(["status"]) == "Playing")
        #expect(decisions.pausesForRouteLoss.isEmpty)

        // Its sink goes: mpv is paused over MPRIS, and nothing plays from the headphones meanwhile.
        let unplugged = ContinuousClock.now
        try rig.sandbox.destroyNode(named: "speaker")
        // Muted by policy until mpv confirms its pause: a window of a few ms, too short to catch
        // by polling reliably, so the daemon's own account (its decision on the bus) is the
        // oracle for it.
        try decisions.waitForPauses()
        let unlinked = milliseconds(since: unplugged)
        #expect(decisions.pausesForRouteLoss == [music] && decisions.pauseMethods == ["mpris"], "paused over MPRIS: \(decisions.pauseMethods)")
        try rig.waitForStatus("Paused")
        // Paused, it goes back on its new route (silent), so play resumes there.
        try rig.sandbox.waitUntilLinked(stream, to: ["headphones"])
        print("route latency: sink removed → mpv unlinked \(unlinked) ms, → playerctl reads Paused \(milliseconds(since: unplugged)) ms")
        #expect(decisions.changes.last?.reason == "oldDeviceUnavailable")

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
        try waitUntil(timeout: .seconds(10), "mpv's session is activated again (so far \(decisions.kinds(of: music)); sessions now \((try? oracle.sessions().map { "\($0.id) \($0.summary)" }) ?? []); streams \((try? rig.sandbox.dump().nodes.filter { $0.name == stream }.map { "\($0.id) \($0.state ?? "?") corked \($0.property("pulse.corked") ?? "-")" }) ?? []); daemon:\n\(rig.daemon.log.suffix(6000)))") {
            decisions.kinds(of: music).filter { $0 == "activated" }.count >= 2
        }
        #expect(try rig.daemon.terminate() == 0)
    }
}
