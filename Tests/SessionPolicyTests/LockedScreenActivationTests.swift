import Testing
@testable import SessionPolicy

/// `cannotInterruptOthers`: on iOS only a mixable session may activate from the background; the
/// desktop's background is the locked screen.
@Suite struct LockedScreenActivationTests {
    @Test func aNonMixablePlayerCannotCutOffAnotherAppWhileLocked() {
        var h = EngineHarness(.strict)
        let music = h.implicit(1, .playback, app: "music")
        _ = h.play(music)
        let player = h.explicit(2, .playback, app: "podcasts")
        let game = h.explicit(3, .playback, options: .mixWithOthers, app: "game")
        let call = h.explicit(4, .playAndRecord, mode: .voiceChat, class: .communication, app: "voip")
        h.send(.screenLocked(true))
        #expect(h.activate(player).failure(player) == .cannotInterruptOthers)
        #expect(h.isPlaying(music), "nothing changed")
        #expect(h.activate(game).contains(.activated(game)), "a mixable session may")
        #expect(h.activate(call).contains(.activated(call)), "a call may: it is not media")
        h.deactivate(call, notifyOthers: true)
        h.send(.screenLocked(false))
        #expect(h.activate(player).contains(.activated(player)), "the user is back")
        #expect(!h.isPlaying(music))
    }

    @Test func onTheDesktopProfileMediaMixesSoNothingIsRefused() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback, app: "music")
        _ = h.play(music)
        let player = h.explicit(2, .playback, app: "podcasts")
        h.send(.screenLocked(true))
        #expect(h.activate(player).contains(.activated(player)), "it interrupts nobody")
    }
}
