import Testing
@testable import SessionPolicy

/// The forecast of what a new session's first stream would interrupt by unlinking: the
/// engine's own judgement on a copy, so the same as what the real start then does, and the
/// engine untouched.
@Suite struct ForecastTests {
    let call = SessionDescriptor(
        kind: .implicit, app: "voip",
        classification: Classification(category: .playAndRecord, mode: .voiceChat, priorityClass: .communication))

    @Test func aCallForecastsWhatItsStartThenInterruptsInTheSameOrderAndChangesNothing() {
        var h = EngineHarness(.desktop)
        let first = h.implicit(1, .playback)
        let second = h.implicit(2, .playback)
        let player = h.implicit(3, .playback, capabilities: [.mpris, .unlink, .mute])
        _ = h.play(first)
        _ = h.play(second)
        _ = h.play(player)
        let before = h.engine
        let stream = StreamID(.playback, 900)
        let forecast = h.engine.sessionsUnlinked(byNewSession: call, starting: stream, at: Timestamp(nanoseconds: h.clock))
        #expect(h.engine.snapshot(of: first) == before.snapshot(of: first))
        #expect(h.engine.playingSessions == before.playingSessions)
        // A player is paused through MPRIS, not unlinked: not forecast.
        #expect(forecast == [second, first])
        let session = h.implicit(9, .playAndRecord, mode: .voiceChat, class: .communication, app: "voip")
        let began = h.send(.streamStarted(session, stream)).compactMap { decision -> SessionID? in
            if case .interruptionBegan(let id, _, .unlink) = decision { id } else { nil }
        }
        #expect(began == forecast)
    }

    @Test func aDuckingOrMixingSessionForecastsNobody() {
        var h = EngineHarness(.desktop)
        _ = h.play(h.implicit(1, .playback))
        let notification = SessionDescriptor(
            kind: .implicit, app: "chime",
            classification: Classification(category: .playback, options: [.duckOthers], priorityClass: .notification))
        let music = SessionDescriptor(kind: .implicit, app: "other", classification: Classification(category: .playback))
        let now = Timestamp(nanoseconds: h.clock)
        #expect(h.engine.sessionsUnlinked(byNewSession: notification, starting: StreamID(.playback, 900), at: now).isEmpty)
        #expect(h.engine.sessionsUnlinked(byNewSession: music, starting: StreamID(.playback, 901), at: now).isEmpty)
    }

    @Test func aStreamAlreadyOwnedOrAnExplicitSessionForecastsNobody() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback)
        let song = h.play(music)
        let now = Timestamp(nanoseconds: h.clock)
        #expect(h.engine.sessionsUnlinked(byNewSession: call, starting: song, at: now).isEmpty)
        var explicit = call
        explicit.kind = .explicit
        #expect(h.engine.sessionsUnlinked(byNewSession: explicit, starting: StreamID(.playback, 900), at: now).isEmpty)
    }
}
