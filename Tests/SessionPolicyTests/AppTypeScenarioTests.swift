import Testing
@testable import SessionPolicy

/// Reference §9: the behaviour each kind of app expects, end to end through events.
@Suite struct AppTypeScenarioTests {
    static let speaker = Port(uid: "speaker", nodeID: 40, type: .builtInSpeaker, direction: .output)
    static let headphones = Port(uid: "headphones", nodeID: 41, type: .headphones, direction: .output)
    static let mic = Port(uid: "mic", nodeID: 42, type: .builtInMic, direction: .input)

    @Test func gameMixesWithMusicAndSilencesItsSoundtrackOnTheHint() {
        var h = EngineHarness(.strict)
        let game = h.explicit(1, .ambient, app: "game")
        let music = h.implicit(2, .playback, app: "player")
        h.activate(game)
        _ = h.play(game)
        let song = h.play(music)
        #expect(Set(h.engine.playingSessions) == [game, music])
        #expect(h.log.hints(game) == [.begin])
        #expect(h.engine.secondaryAudioShouldBeSilencedHint(for: game))
        h.send(.streamStopped(song))
        #expect(h.log.hints(game) == [.begin, .end])
        #expect(!h.engine.secondaryAudioShouldBeSilencedHint(for: game))
    }

    @Test func gameResumesAfterACallAndIgnoresRouteChanges() {
        var h = EngineHarness(.desktop)
        h.send(.devicesEnumerated([Self.speaker, Self.headphones], defaultOutput: "headphones", defaultInput: nil))
        let game = h.implicit(1, .ambient)
        let call = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        _ = h.play(game)
        #expect(h.activate(call).began(game))
        #expect(h.deactivate(call, notifyOthers: true).ended(game) == .shouldResume)
        #expect(h.isPlaying(game))
        let unplug = h.send(.deviceRemoved(uid: "headphones"))
        #expect(unplug.links(game) == [RouteDescription(outputs: [Self.speaker])])
        #expect(!unplug.contains { if case .pauseForRouteLoss(game, _) = $0 { true } else { false } })
        #expect(h.isPlaying(game))
    }

    @Test func musicPlayerPausesOnInterruptionResumesOnlyWithShouldResumeAndPausesOnUnplug() {
        var h = EngineHarness(.desktop)
        h.send(.devicesEnumerated([Self.speaker], defaultOutput: "speaker", defaultInput: nil))
        let player = h.implicit(1, .playback, capabilities: [.mpris, .unlink, .mute])
        let song = h.play(player)
        let plug = h.send(.deviceAdded(Self.headphones))
        #expect(plug.links(player) == [RouteDescription(outputs: [Self.headphones])])
        #expect(h.isPlaying(player))  // plugging in: playback continues on the new device
        let unplug = h.send(.deviceRemoved(uid: "headphones"))
        #expect(unplug.contains(.pauseForRouteLoss(player, method: .mpris)))
        #expect(!h.isPlaying(player))
        // The user presses play again; a call comes and goes without notify: no resume.
        h.send(.streamStarted(player, song))
        let call = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(h.activate(call).began(player))
        #expect(h.deactivate(call).ended(player) == [])
        #expect(!h.isPlaying(player))
    }

    /// Before iOS 17 (and with `prefersInterruptionOnRouteDisconnect` cleared) the player is
    /// only told; by default it is interrupted too (SessionPreferencesTests).
    @Test func explicitMusicPlayerThatOptsOutHearsOldDeviceUnavailableAndStaysActive() {
        var h = EngineHarness(.desktop)
        h.send(.devicesEnumerated([Self.speaker, Self.headphones], defaultOutput: "headphones", defaultInput: nil))
        let player = h.explicit(1, .playback)
        h.send(.setPreferences(player, SessionPreferences(prefersInterruptionOnRouteDisconnect: false)))
        h.activate(player)
        _ = h.play(player)
        let unplug = h.send(.deviceRemoved(uid: "headphones"))
        #expect(unplug.routeReasons(player) == [.oldDeviceUnavailable])
        #expect(h.activity(player) == .active)
    }

    @Test func voipIsActiveOnlyDuringTheCallAndResumesOthers() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback)
        let voip = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        _ = h.play(music)
        h.activate(voip)
        let microphone = h.play(voip, .capture)
        #expect(h.activity(music) == .interrupted)
        #expect(h.deactivate(voip, notifyOthers: true) == [.failed(voip, .isBusy)], "it still records: hang up first")
        #expect(h.activity(voip) == .active)
        h.send(.streamStopped(microphone))
        #expect(h.deactivate(voip, notifyOthers: true).ended(music) == .shouldResume)
        #expect(h.isPlaying(music))
    }

    @Test func browserVideoInterruptsMusicAndGivesItBack() {
        var h = EngineHarness(.strict)
        let music = h.explicit(1, .playback)
        let browser = h.explicit(2, .playback)
        h.activate(music)
        #expect(h.activate(browser).began(music))
        #expect(h.deactivate(browser, notifyOthers: true).ended(music) == .shouldResume)
    }

    @Test func navigationPromptDucksMusicInterruptsPodcastAndIsNeverResumed() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback)
        let podcast = h.implicit(2, .playback, mode: .spokenAudio)
        let nav = h.implicit(3, .playback, mode: .voicePrompt,
                             options: [.duckOthers, .interruptSpokenAudioAndMixWithOthers], class: .navigation)
        _ = h.play(music)
        _ = h.play(podcast)
        let prompt = h.play(nav)
        #expect(h.gain(music) == 0.3)
        #expect(h.log.began(podcast))
        #expect(h.send(.streamStopped(prompt)).ended(podcast) == .shouldResume)
        #expect(h.gain(music) == 1.0)
        // A prompt interrupted by a call is stale: ended without shouldResume.
        _ = h.play(nav)
        let call = h.implicit(4, .playAndRecord, mode: .voiceChat, class: .communication)
        let talk = h.play(call)
        #expect(h.activity(nav) == .interrupted)
        #expect(h.send(.streamStopped(talk)).ended(nav) == [])
    }

    @Test func cooperativeMusicPlaysAlongAndRaisesNoHint() {
        var h = EngineHarness(.strict)
        let game = h.explicit(1, .ambient, app: "game")
        let music = h.explicit(2, .playback, app: "player")
        let coop = h.explicit(3, .playback, options: .mixWithOthers, app: "coop")
        h.activate(game)
        h.activate(music)
        let decisions = h.activate(coop)
        #expect(!decisions.began(music))
        #expect(Set(h.engine.playingSessions) == [game, music, coop])
        #expect(h.log.hints(game) == [.begin])  // from the non-mixable player only
        h.deactivate(music)
        #expect(h.log.hints(game) == [.begin, .end])  // the coop player raises none
        #expect(h.engine.isOtherAudioPlaying(for: game))
    }
}
