import Testing
@testable import SessionPolicy

/// The HIG: media controls are answered only by the app that is the current media player —
/// the one that most recently played non-mixable `playback` audio, kept while paused or
/// interrupted, never taken over by mixable audio.
@Suite struct NowPlayingTests {
    /// The `nowPlayingChanged` decisions of a step.
    static func changes(_ decisions: [PolicyDecision]) -> [SessionID?] {
        decisions.compactMap { if case .nowPlayingChanged(let id) = $0 { id } else { nil } }
    }

    @Test func theLastNonMixablePlayerIsNowPlayingAndStaysWhilePaused() {
        var h = EngineHarness()
        let music = h.implicit(1, .playback)
        #expect(h.engine.nowPlaying == nil)
        let started = h.send(.streamStarted(music, StreamID(.playback, 1)))
        #expect(Self.changes(started) == [music])
        let paused = h.send(.streamPausedByUser(StreamID(.playback, 1)))
        #expect(Self.changes(paused).isEmpty, "its user paused it: Play must still reach it")
        #expect(h.engine.nowPlaying == music)
        let video = h.explicit(2, .playback)
        #expect(Self.changes(h.activate(video)) == [video])
        #expect(h.engine.snapshot(of: music)?.activity == .inactive)
    }

    @Test func mixableAudioNeverTakesOver() {
        var h = EngineHarness()
        let music = h.explicit(1, .playback)
        h.activate(music)
        let game = h.implicit(2, .ambient)
        let cooperative = h.explicit(3, .playback, options: .mixWithOthers)
        let call = h.explicit(4, .playAndRecord, mode: .voiceChat, class: .communication)
        for other in [game, cooperative] { #expect(Self.changes(h.activate(other)).isEmpty) }
        #expect(Self.changes(h.activate(call)).isEmpty, "a call interrupts the music; it does not take the media keys")
        #expect(h.engine.nowPlaying == music)
        #expect(h.activity(music) == .interrupted)
    }

    @Test func whenThePlayerGoesTheOneBeforeIsNowPlayingAgain() {
        var h = EngineHarness()
        let first = h.explicit(1, .playback)
        let second = h.explicit(2, .playback)
        h.activate(first)
        h.activate(second)
        #expect(h.engine.nowPlaying == second)
        #expect(Self.changes(h.send(.sessionRemoved(second))) == [first])
        #expect(Self.changes(h.send(.setCategory(first, .playback, mode: .default, options: .mixWithOthers))) == [nil],
                "mixable now: no longer a media player")
        #expect(h.engine.nowPlaying == nil)
    }

    @Test func reclassifyingTheRulesCanEndIt() {
        var h = EngineHarness()
        let app = h.implicit(1, .playback)
        _ = h.play(app)
        #expect(h.engine.nowPlaying == app)
        let changed = h.send(.reclassify(app, Classification(category: .ambient, priorityClass: .media)))
        #expect(Self.changes(changed) == [nil])
    }
}
