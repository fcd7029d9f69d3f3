import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// Holds ahead: a call known from its announcement (the server's registry entry, a round-trip
/// before its description) has its first victim held ahead; anything that would not
/// interrupt, or that the announcement cannot tell, holds nobody ahead.
extension PolicyCoordinatorTests {
    private var holdsAhead: [FakeBackend.Action] {
        backend.actions.filter { if case .holdAhead = $0 { true } else { false } }
    }

    @Test func aCallAnnouncedHoldsTheFirstAppsStreamsAheadAndChangesNothingElse() {
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        coordinator.handle(.streamAppeared(stream(3, role: "Music", client: 10)))
        coordinator.handle(.streamAppeared(stream(5, role: "Music", client: 11)))
        backend.clearActions()
        coordinator.handle(.streamAnnounced(stream(2, role: "Communication", client: 20, activity: .idle), mayStartPaused: false))
        // The newest app first, as the engine interrupts: client 11's stream; nothing else yet.
        #expect(backend.actions == [.holdAhead([.playback(5)], until: .playback(2))])
        #expect(coordinator.engine.snapshot(of: coordinator.sessions.streams[.playback(1)]!.session)?.activity == .active)
        #expect(coordinator.sessions.streams[.playback(2)] == nil, "the call is not a session yet")
        // Its appearance interrupts for real: every app's streams held.
        coordinator.handle(.streamAppeared(stream(2, role: "Communication", client: 20)))
        loop.runQueued()
        let held: Set<StreamID> = Set(backend.actions.compactMap { if case .hold(let id) = $0 { id } else { nil } })
        #expect(held == [.playback(1), .playback(3), .playback(5)])
    }

    @Test func aNotificationOrMusicAnnouncedHoldsNobodyAhead() {
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        backend.clearActions()
        coordinator.handle(.streamAnnounced(stream(2, role: "Notification", client: 20, activity: .idle), mayStartPaused: false))
        coordinator.handle(.streamAnnounced(stream(3, role: "Music", client: 21, activity: .idle), mayStartPaused: false))
        #expect(holdsAhead.isEmpty)
    }

    @Test func aCallThatMayStartPausedHoldsNobodyAhead() {
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        backend.clearActions()
        coordinator.handle(.streamAnnounced(stream(2, role: "Communication", client: 20, activity: .idle), mayStartPaused: true))
        #expect(holdsAhead.isEmpty)
    }

    @Test func aStreamOfAnAppWithASessionHoldsNobodyAhead() {
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        coordinator.handle(.streamAppeared(stream(2, role: "Communication", client: 20, activity: .pausedByUser)))
        backend.clearActions()
        // The app's second stream joins its session: its classification is its whole app's, judged when it appears.
        coordinator.handle(.streamAnnounced(stream(4, role: "Communication", client: 20, activity: .idle), mayStartPaused: false))
        #expect(holdsAhead.isEmpty)
    }
}
