import AppProcesses
import Testing

@testable import AudioSessionDaemon

/// Which player plays a stream: pure rules, with a made-up process tree.
@Suite("MPRIS: matching players to streams")
struct MPRISMatchingTests {
    /// 1 ← 100 (browser) ← 101 (its audio child) ← 102; 200 unrelated.
    let parents: [Int32: Int32] = [100: 1, 101: 100, 102: 101, 200: 1]

    func ancestry(_ pid: Int32) -> [Int32] {
        var chain: [Int32] = []
        var current = pid
        while current > 1 {
            chain.append(current)
            current = parents[current] ?? 1
        }
        return chain
    }

    func player(pid: Int32?, app: String? = nil) -> MPRISPlayer {
        MPRISPlayer(busName: "org.mpris.MediaPlayer2.x", uniqueName: ":1.1", processID: pid, flatpakAppID: app, status: .playing)
    }

    func stream(pid: Int32?, statedPID: Int32? = nil, sandboxAppID: String? = nil) -> BackendStream {
        BackendStream(
            id: .playback(1), client: 1, properties: [:], activity: .playing, appName: "x", processID: pid,
            sandboxAppID: sandboxAppID, statedProcessID: statedPID)
    }

    @Test func sameProcess() {
        #expect(PlayerMatching.player(player(pid: 200), plays: stream(pid: 200), ancestry: ancestry))
    }

    @Test func playerIsAnAncestorOfTheStreamsProcess() {
        #expect(PlayerMatching.player(player(pid: 100), plays: stream(pid: 102), ancestry: ancestry))
    }

    @Test func playerIsADescendantOfTheStreamsProcess() {
        #expect(PlayerMatching.player(player(pid: 102), plays: stream(pid: 100), ancestry: ancestry))
    }

    @Test func unrelatedProcessesDoNotMatch() {
        #expect(!PlayerMatching.player(player(pid: 200), plays: stream(pid: 101), ancestry: ancestry))
        #expect(!PlayerMatching.player(player(pid: nil), plays: stream(pid: 101), ancestry: ancestry))
        #expect(!PlayerMatching.player(player(pid: 101), plays: stream(pid: nil), ancestry: ancestry))
    }

    @Test func initIsNobodysPlayer() {
        #expect(!PlayerMatching.player(player(pid: 1), plays: stream(pid: 101), ancestry: ancestry))
    }

    @Test func theStreamsPidPropertyIsUsedWhenTheClientHasNone() {
        #expect(PlayerMatching.player(
            player(pid: 100), plays: stream(pid: nil, statedPID: 101), ancestry: ancestry))
    }

    @Test func sameFlatpakApp() {
        let flatpak = stream(pid: 200, sandboxAppID: "org.example.Player")
        #expect(PlayerMatching.player(player(pid: 999, app: "org.example.Player"), plays: flatpak, ancestry: ancestry))
        #expect(!PlayerMatching.player(player(pid: 999, app: "org.example.Other"), plays: flatpak, ancestry: ancestry))
    }

    @Test func playersOfASessionsStreams() {
        let players = [
            "org.mpris.MediaPlayer2.a": player(pid: 100), "org.mpris.MediaPlayer2.b": player(pid: 200),
        ]
        let found = PlayerMatching.players(of: [stream(pid: 102)], among: players, ancestry: ancestry)
        #expect(found == ["org.mpris.MediaPlayer2.a"])
    }

    @Test func flatpakAppIDFromTheSandboxInfoOrTheCgroup() {
        let info = "[Application]\nname=org.example.Player\nruntime=runtime/org.freedesktop.Platform\n\n[Instance]\nname=other\n"
        #expect(FlatpakAppID.applicationName(inFlatpakInfo: info) == "org.example.Player")
        #expect(FlatpakAppID.applicationName(inFlatpakInfo: "[Instance]\nname=x\n") == nil)
        let cgroup = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.example.Player-12345.scope\n"
        #expect(FlatpakAppID.applicationName(inCgroup: cgroup) == "org.example.Player")
        #expect(FlatpakAppID.applicationName(inCgroup: "0::/user.slice/session-2.scope\n") == nil)
    }

    @Test func unknownPlaybackStatusCountsAsStopped() {
        #expect(PlaybackStatus(wire: "Playing") == .playing)
        #expect(PlaybackStatus(wire: "Buffering") == .stopped)
    }
}
