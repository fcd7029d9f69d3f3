import Foundation
import PipeWireSandbox
import Testing

/// Nothing left behind over MPRIS: a media player the daemon paused for a call plays
/// again when the daemon stops (SIGTERM), or when it is restarted after a `kill -9` — unless
/// the call still goes on (then the restarted daemon adopts the pause and the call's end plays
/// it), or its user paused it themselves. A real mpv with mpv-mpris on a private bus, the
/// real daemon, `playerctl` for the player's state; the rig of MPRISInterruptionTests.
@Suite("MPRIS: pauses do not outlive the daemon", .serialized)
struct MPRISLeftoverTests {
    typealias Rig = MPRISInterruptionTests.Rig
    static let mpv = "org.mpris.MediaPlayer2.mpv"

    /// mpv plays; a call pauses it over MPRIS, confirmed; the journal names it. `ao`: `pulse`
    /// (a pause corks mpv's stream) or `pipewire` (a pause leaves it idle).
    private func musicPausedByACall(_ rig: Rig, ao: String = "pulse") async throws -> ManagedProcess {
        _ = try await rig.startPlayingMusic(ao: ao)
        let call = try rig.startCall()
        try await rig.waitForStatus("Paused")
        try await rig.waitForPlayerSession("paused by us, confirmed, owed a Play") {
            $0.mprisPause == "paused" && $0.mprisOwedPlay == [Self.mpv]
        }
        #expect(rig.mprisJournal?.contains(Self.mpv) == true, "journalled: \(rig.mprisJournal ?? "no journal")")
        return call
    }

    private func waitForNoJournal(_ rig: Rig) async throws {
        try await waitUntil(timeout: .seconds(5), "no MPRIS journal is left; it says \(rig.mprisJournal ?? "")") {
            () async -> Bool in rig.mprisJournal == nil
        }
    }

    @Test(arguments: ["pulse", "pipewire"])
    func sigtermDuringACallPlaysThePlayerAgain(ao: String) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        _ = try await musicPausedByACall(rig, ao: ao)

        let signalled = ContinuousClock.now
        #expect(try rig.stopDaemon(SIGTERM) == 0)
        print("MPRIS (--ao=\(ao)): SIGTERM → daemon exited, Play answered, in \(MPRISInterruptionTests.ms(.now - signalled)) ms")
        try await rig.waitForStatus("Playing", timeout: .seconds(3))
        #expect(rig.mprisJournal == nil, "the Play was answered before exit: nothing owed")
    }

    @Test(arguments: ["pulse", "pipewire"])
    func sigkillDuringACallThatEndedMeanwhilePlaysThePlayerOnRestart(ao: String) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let call = try await musicPausedByACall(rig, ao: ao)

        try rig.stopDaemon(SIGKILL)
        call.terminate()
        // Dead daemon: mpv stays paused (that is the danger) ...
        #expect(try rig.status() == "Paused")
        // ... until the next start reads the journal: nothing interrupts it now, so Play.
        let restarted = ContinuousClock.now
        try await rig.restartDaemon()
        try await rig.waitForStatus("Playing")
        print("MPRIS (--ao=\(ao)): daemon restarted → mpv Playing (playerctl) in \(MPRISInterruptionTests.ms(.now - restarted)) ms")
        try await waitForNoJournal(rig)
    }

    @Test(arguments: ["pulse", "pipewire"])
    func sigkillDuringACallThatGoesOnKeepsThePlayerPausedUntilTheCallEnds(ao: String) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let call = try await musicPausedByACall(rig, ao: ao)

        try rig.stopDaemon(SIGKILL)
        try await rig.restartDaemon()
        try await rig.waitForPlayerSession("the call goes on: the pause is ours again, owed a Play") {
            $0.mprisPause == "paused" && $0.mprisOwedPlay == [Self.mpv]
        }
        #expect(try rig.status() == "Paused", "the call goes on: the restart does not play the music over it")
        #expect(rig.mprisJournal?.contains(Self.mpv) == true, "still owed")

        call.terminate()
        try await rig.waitForStatus("Playing")
        try await waitForNoJournal(rig)
    }

    @Test func aPlayerItsUserPausedDuringTheCallIsNotPlayedByARestart() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let call = try await musicPausedByACall(rig)
        // The user presses play during the call (the daemon pauses it again) and pause: theirs now.
        try rig.playerctl("play")
        try await rig.waitForPlayerSession("its user took over: still paused for the call, owed nothing") {
            $0.mprisPause != "none" && $0.mprisOwedPlay.isEmpty
        }
        try await rig.waitForStatus("Paused")
        try rig.playerctl("pause")
        try await waitForNoJournal(rig)

        try rig.stopDaemon(SIGKILL)
        call.terminate()
        try await rig.restartDaemon()
        try await expectStaysPaused(rig)
    }

    @Test func sigtermLeavesAPlayerItsUserTookOverDuringTheCallPaused() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        _ = try await musicPausedByACall(rig)
        try rig.playerctl("play")
        try await rig.waitForPlayerSession("its user took over: still paused for the call, owed nothing") {
            $0.mprisPause != "none" && $0.mprisOwedPlay.isEmpty
        }
        try await rig.waitForStatus("Paused")
        try rig.playerctl("pause")
        try await waitForNoJournal(rig)

        // Owed nothing: the daemon's exit, which waits for the answers to its Plays, presses none.
        #expect(try rig.stopDaemon(SIGTERM) == 0)
        #expect(try rig.status() == "Paused")
    }

    @Test func aPlayerItsUserPausedAfterTheCallIsNotPlayedByARestart() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let call = try await musicPausedByACall(rig)
        call.terminate()
        try await rig.waitForStatus("Playing")
        try await waitForNoJournal(rig)  // our Play confirmed: owed no more
        try rig.playerctl("pause")
        try await rig.waitForDaemonToSee(Self.mpv, "Paused")

        try rig.stopDaemon(SIGKILL)
        try await rig.restartDaemon()
        try await expectStaysPaused(rig)
    }

    /// The restarted daemon knows mpv and its stream, found no journal (so nothing of a
    /// previous run to play), holds no pause of it, and mpv is still Paused.
    private func expectStaysPaused(_ rig: Rig) async throws {
        try await rig.waitForSessionsWithPlayers(1)
        try await rig.waitForDaemonToSee(Self.mpv, "Paused")
        #expect(rig.mprisJournal == nil, "nothing owed from the run before")
        try await rig.waitForPlayerSession("no pause of ours") { $0.mprisPause == "none" && $0.mprisOwedPlay.isEmpty }
        #expect(try rig.status() == "Paused")
    }
}
