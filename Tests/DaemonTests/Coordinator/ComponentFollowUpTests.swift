import Foundation
import Logging
import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// Route execution and the player control as components: each call takes what the coordinator
/// knows and returns what must happen next (``FollowUp``), and their timers come back through
/// the inbox by name (``DueWork``). No coordinator here: what they ask for is read as it is.
@Suite("Components return their follow-ups")
struct ComponentFollowUpTests {
    let loop = VirtualLoop()
    let inbox: DueWorkInbox
    let timing = EnforcementTiming.standard
    let logger = Logger(label: "test")
    let backend = FakeBackend()
    /// What came back through the inbox, in order.
    let delivered = DeliveredWork()
    let music = SessionID(1 << 32)
    static let mpv = "org.mpris.MediaPlayer2.mpv"
    static let mpvPID: Int32 = 4242

    init() {
        inbox = DueWorkInbox(loop: loop)
        inbox.handler.wire { [delivered] in delivered.work.append($0) }
    }

    var routes: RouteExecution { RouteExecution(backend: backend, inbox: inbox, timing: timing, logger: logger) }

    /// mpv's session with its one playback stream, as the coordinator books it.
    func sessions(reportedActive: Bool = true) -> ImplicitSessions {
        var sessions = ImplicitSessions()
        let (id, _) = sessions.session(for: AppIdentity(key: "mpv"))
        #expect(id == music)
        sessions.add(
            BackendStream(
                id: .playback(1), client: 10, properties: ["media.role": "Music"], activity: .playing, appName: "mpv",
                processID: Self.mpvPID),
            to: id, classification: .init(classification: Classification(), identity: AppIdentity(key: "mpv")))
        sessions.setReportedActive(reportedActive, stream: .playback(1))
        return sessions
    }

    // MARK: - Route execution

    @Test func pauseOnUnplugOverMPRISCountsTheStreamsOutHoldsThemAndThenChecksThePlayers() {
        let followUps = routes.pauseForRouteLoss(music, method: .mpris, streams: [.playback(1), .playback(2)])
        #expect(followUps == [
            .markReported(.playback(1), active: false), .markReported(.playback(2), active: false),
            .routeLoss(music, .mpris), .then(.routeLossCheck(music, since: loop.now)),
        ])
        #expect(routes.pauseForRouteLoss(music, method: .unlink, streams: []) == [.routeLoss(music, .unlink)])
    }

    @Test func aSessionWhosePlayersAllStoppedGoesBackOnItsRouteSilent() {
        let held = SessionEffects(routeLoss: .mpris)
        #expect(routes.checkPlayersPaused(music, since: loop.now, effects: held, players: ["mpv": .paused]) == [.routeLoss(music, nil)])
        #expect(routes.checkPlayersPaused(music, since: loop.now, effects: nil, players: ["mpv": .paused]) == [], "no longer held")
        #expect(routes.checkPlayersPaused(music, since: loop.now, effects: held, players: nil) == [], "no session bus")
        #expect(delivered.work.isEmpty)
    }

    @Test func aPlayerStillPlayingIsCheckedAgainUntilTheDeadlineThenLeftHeld() {
        let routes = self.routes
        let start = loop.now
        let held = SessionEffects(routeLoss: .mpris)
        #expect(routes.checkPlayersPaused(music, since: start, effects: held, players: ["mpv": .playing]) == [])
        loop.advance(by: timing.routeLossPlayerCheck)
        #expect(delivered.work == [.routeLossCheck(music, since: start)], "checked again, from the same start")
        loop.advance(by: timing.routeLossPlayerDeadline)
        #expect(routes.checkPlayersPaused(music, since: start, effects: held, players: ["mpv": .playing]) == [])
        loop.advance(by: timing.routeLossPlayerCheck * 2)
        #expect(delivered.work.count == 1, "past its deadline it is not checked again")
    }

    @Test func aCheckStillPendingWhenTheSessionPlaysAgainNeverComes() {
        let routes = self.routes
        let held = SessionEffects(routeLoss: .mpris)
        _ = routes.checkPlayersPaused(music, since: loop.now, effects: held, players: ["mpv": .playing])
        #expect(routes.routeLossEnded(music, effects: held, route: nil) == [.routeLoss(music, nil)])
        #expect(routes.routeLossEnded(music, effects: SessionEffects(), route: nil) == [], "nothing held")
        loop.advance(by: timing.routeLossPlayerCheck * 2)
        #expect(delivered.work.isEmpty)
    }

    // MARK: - Player control

    func playerControl() -> (PlayerControl, RecordingButtons) {
        let buttons = RecordingButtons()
        let control = PlayerControl(
            mpris: MPRISPauses(buttons: buttons, journalFile: nil, loop: loop), inbox: inbox, timing: timing,
            quietness: .standard, logger: logger)
        return (control, buttons)
    }

    func context(_ sessions: ImplicitSessions, effects: [SessionID: SessionEffects] = [:]) -> PlayerControl.Context {
        PlayerControl.Context(sessions: sessions, effects: effects, isAttached: true)
    }

    func player(_ status: PlaybackStatus) -> MPRISPlayer {
        MPRISPlayer(busName: Self.mpv, uniqueName: ":1.7", processID: Self.mpvPID, flatpakAppID: nil, status: status)
    }

    @Test func aSessionThatGainsAPlayerIsReportedOnceForItsMethods() {
        let (control, _) = playerControl()
        let sessions = sessions()
        #expect(control.mprisPlayerEvent(.appeared(player(.playing)), in: context(sessions)) == [.capabilitiesChanged(music)])
        #expect(control.mprisPlayerEvent(.appeared(player(.playing)), in: context(sessions)) == [], "known already")
        #expect(control.mprisPlayerEvent(.vanished(busName: Self.mpv), in: context(sessions)) == [.capabilitiesChanged(music)])
    }

    @Test func aPauseNoPlayerConfirmsInTimeAsksTheEngineForAnotherMethod() async throws {
        let (control, buttons) = playerControl()
        let sessions = sessions()
        _ = control.mprisPlayerEvent(.appeared(player(.playing)), in: context(sessions))
        let interrupted = context(sessions, effects: [music: SessionEffects(interruption: .mpris)])
        #expect(control.mprisCarryOut(.interruptionBegan(music, reason: .default, method: .mpris), in: interrupted) == [])
        try await buttons.waitFor(["Pause \(Self.mpv)"])
        loop.advance(by: timing.playerConfirmTimeout)
        #expect(delivered.work == [.pauseUnconfirmed(music)])
        #expect(control.due(.pauseUnconfirmed(music), in: interrupted) == [.submit(.interruptionMethodFailed(music, .mpris))])
        #expect(control.due(.pauseUnconfirmed(music), in: interrupted) == [], "held instead once")
    }

    @Test func aConfirmedPauseAsksForNothing() async throws {
        let (control, buttons) = playerControl()
        let sessions = sessions()
        _ = control.mprisPlayerEvent(.appeared(player(.playing)), in: context(sessions))
        let interrupted = context(sessions, effects: [music: SessionEffects(interruption: .mpris)])
        _ = control.mprisCarryOut(.interruptionBegan(music, reason: .default, method: .mpris), in: interrupted)
        try await buttons.waitFor(["Pause \(Self.mpv)"])
        #expect(control.mprisPlayerEvent(.statusChanged(busName: Self.mpv, .paused), in: interrupted) == [.refreshNowPlaying])
        loop.advance(by: timing.playerConfirmTimeout)
        #expect(delivered.work.isEmpty, "the confirm timer was cancelled")
    }

    @Test func aPlayerThatPlaysStartsTheRunningStreamItsSessionDidNotCount() {
        let (control, _) = playerControl()
        let sessions = sessions(reportedActive: false)
        _ = control.mprisPlayerEvent(.appeared(player(.paused)), in: context(sessions))
        #expect(control.mprisPlayerEvent(.statusChanged(busName: Self.mpv, .playing), in: context(sessions))
            == [.refreshNowPlaying, .start(.playback(1))])
    }
}

/// The due work an inbox delivered (the tests' handler).
final class DeliveredWork: @unchecked Sendable {
    var work: [DueWork] = []
}
