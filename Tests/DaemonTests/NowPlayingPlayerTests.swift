import Foundation
import PipeWireSandbox
import SessionBus
import Synchronization
import Testing

/// Media keys reach the app that holds the audio: `org.mpris.MediaPlayer2.audiosession`
/// forwards them to the current media player, not to another one playing mixable audio. Two
/// real MPRIS players (mpv with mpv-mpris over pipewire-pulse) on a private bus, and an
/// explicit session that gets them as `RemoteCommand` signals.
@Suite("Now Playing: media keys go to the current media player", .serialized)
struct NowPlayingPlayerTests {
    static let service = "org.audiosession.Manager1"
    static let nowPlaying = "org.mpris.MediaPlayer2.audiosession"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"

    /// Waits until the daemon's forwarding player answers on the bus.
    func waitUntilServed(on connection: BusConnection) async throws {
        try await eventually("the daemon serves \(Self.nowPlaying)") {
            (try? await connection.property(
                "PlaybackStatus", of: Self.playerInterface, at: "/org/mpris/MediaPlayer2", on: Self.nowPlaying, timeout: .seconds(2))) != nil
        }
    }

    @Test func mediaKeysReachTheMusicNotTheGameThatMixesWithIt() async throws {
        let rig = try await MPRISInterruptionTests.Rig().ready()
        defer { rig.stop() }
        let connection = try BusConnection(address: rig.bus.address)
        defer { connection.close() }
        try await waitUntilServed(on: connection)

        _ = try await rig.startPlayingMusic()
        // A game playing its soundtrack with mpv too: ambient, mixable, an MPRIS player of its own.
        let game = try rig.sandbox.spawn(
            "mpv",
            ["--no-config", "--script=\(MPRISInterruptionTests.mprisPlugin)", "--no-video", "--ao=pulse",
             "--audio-client-name=game", "--loop-file=inf", "--no-terminal", rig.tone.path],
            extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": rig.bus.address, "PULSE_PROP": "media.role=game"])
        let gamePlayer = "org.mpris.MediaPlayer2.mpv.instance\(game.pid)"
        let musicPlayer = "org.mpris.MediaPlayer2.mpv"
        func status(_ player: String) async -> String {
            (try? await connection.property(
                "PlaybackStatus", of: Self.playerInterface, at: "/org/mpris/MediaPlayer2", on: player, timeout: .seconds(2)))?
                .stringValue ?? "gone"
        }
        try await eventually("the game plays") { await status(gamePlayer) == "Playing" }
        try await rig.waitForSessionsWithPlayers(2)

        let app = try await connection.property(
            "NowPlayingApp", of: Self.service, at: "/org/audiosession/Manager1", on: Self.service, timeout: .seconds(5))
        #expect(app.stringValue == "music-player", "the music is the current media player, not the mixable game")
        let statusText = try ManagedProcess.run(
            DaemonProcess.path(of: "audiosessionctl"), ["status"],
            environment: rig.sandbox.environment.merging(["DBUS_SESSION_BUS_ADDRESS": rig.bus.address]) { $1 },
            logDirectory: rig.sandbox.logDirectory)
        #expect(statusText.contains(" mpv (music-player) (media keys go there)"), "its program and the name it gives: \(statusText)")
        let all = try? await connection.call(
            Self.nowPlaying, path: "/org/mpris/MediaPlayer2", interface: "org.freedesktop.DBus.Properties", member: "GetAll",
            [.string(Self.playerInterface)], timeout: .seconds(2))
        #expect(await status(Self.nowPlaying) == "Playing", "\(String(describing: all))\n\(rig.log)")

        try rig.playerctl(on: "audiosession", "pause")
        try await eventually("the music is paused by the media key") { await status(musicPlayer) == "Paused" }
        #expect(await status(gamePlayer) == "Playing", "the game that mixes with it never got the key")
        try await eventually("the forwarding player says Paused too") { await status(Self.nowPlaying) == "Paused" }
        try rig.playerctl(on: "audiosession", "play")
        try await eventually("the music plays again") { await status(musicPlayer) == "Playing" }
        #expect(await status(gamePlayer) == "Playing")
    }

    @Test func anExplicitSessionGetsTheKeysAsRemoteCommands() async throws {
        let rig = try await MPRISInterruptionTests.Rig().ready()
        defer { rig.stop() }
        let connection = try BusConnection(address: rig.bus.address)
        defer { connection.close() }
        try await waitUntilServed(on: connection)
        let created = try await connection.call(
            Self.service, path: "/org/audiosession/Manager1", interface: Self.service, member: "CreateSession",
            [.string("podcasts")], timeout: .seconds(5))
        let path = try #require(created.first?.stringValue)
        let commands = Mutex<[String]>([])
        let stream = try await connection.signals(path: path, interface: "org.audiosession.Session1", member: "RemoteCommand")
        let collector = Task { for await signal in stream { commands.withLock { $0.append(signal.arguments.first?.stringValue ?? "") } } }
        defer { collector.cancel() }
        func session(_ member: String, _ arguments: [BusValue]) async throws {
            _ = try await connection.call(Self.service, path: path, interface: "org.audiosession.Session1", member: member, arguments, timeout: .seconds(5))
        }
        try await session("SetCategory", [.string("playback"), .string("spokenAudio"), .uint32(0)])
        try await session("SetActive", [.bool(true), .uint32(0)])
        try await eventually("the podcast app is now playing") {
            (try? await connection.property("IsNowPlaying", of: "org.audiosession.Session1", at: path, on: Self.service, timeout: .seconds(2)))?
                .boolValue == true
        }
        try rig.playerctl(on: "audiosession", "next")
        try rig.playerctl(on: "audiosession", "play-pause")
        try await eventually("RemoteCommand Next, then PlayPause (got \(commands.withLock { $0 }))") {
            await Task.yield()
            return commands.withLock { $0 } == ["Next", "PlayPause"]
        }
    }

    private func eventually(_ description: String, _ condition: () async throws -> Bool) async throws {
        try await waitUntil(timeout: .seconds(10), description, condition)
    }
}

extension MPRISInterruptionTests.Rig {
    /// `playerctl --player=NAME COMMAND` on the rig's bus.
    func playerctl(on player: String, _ command: String) throws {
        try ManagedProcess.run(
            "playerctl", ["--player=\(player)", command],
            environment: sandbox.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 },
            logDirectory: sandbox.logDirectory)
    }
}
