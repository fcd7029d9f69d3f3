import Testing
@testable import SessionPolicy

/// An explicit session's preferences: spared from system alerts, interrupted when its route
/// disconnects (iOS 17's default) or not, and notification sounds silenced while it records.
@Suite struct SessionPreferencesTests {
    static let speaker = Port(uid: "speaker", nodeID: 1, type: .builtInSpeaker, direction: .output)
    static let headphones = Port(uid: "headphones", nodeID: 3, type: .headphones, direction: .output)

    @Test func aSessionThatPrefersNoSystemAlertsIsNeitherDuckedNorInterruptedByANotification() {
        var h = EngineHarness(.desktop)
        let recital = h.explicit(1, .playback)
        let music = h.implicit(2, .playback, options: .mixWithOthers)
        h.send(.setPreferences(recital, SessionPreferences(prefersNoInterruptionsFromSystemAlerts: true)))
        h.activate(recital)
        _ = h.play(music)
        let ding = h.implicit(3, .ambient, class: .notification)
        let chime = h.play(ding)
        #expect(h.gain(recital) == 1.0, "spared")
        #expect(h.gain(music) == 0.3, "the others are ducked as before")
        h.send(.streamStopped(chime))

        // Changing its mind while a notification plays takes effect at once.
        _ = h.play(ding)
        h.send(.setPreferences(recital, .default))
        #expect(h.gain(recital) == 0.3)
        h.send(.setPreferences(recital, SessionPreferences(prefersNoInterruptionsFromSystemAlerts: true)))
        #expect(h.gain(recital) == 1.0)
    }

    @Test func anInterruptingAlertSparesOnlyTheSessionThatAsked() {
        var h = EngineHarness(.desktop)
        let alertClass = PriorityClass(name: PriorityClass.notification.name, priority: 20, towardLower: .interrupt)
        let spared = h.explicit(1, .playback, options: .mixWithOthers)
        let other = h.explicit(2, .playback, options: .mixWithOthers)
        h.send(.setPreferences(spared, SessionPreferences(prefersNoInterruptionsFromSystemAlerts: true)))
        h.activate(spared)
        h.activate(other)
        let alert = h.implicit(3, .playback, options: .mixWithOthers, class: alertClass)
        _ = h.play(alert)
        #expect(!h.log.began(spared))
        #expect(h.log.began(other))
        #expect(h.activity(spared) == .active)
    }

    @Test func theCurrentPlayerIsInterruptedWhenItsHeadphonesGoUnlessItOptsOut() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.headphones], defaultOutput: "headphones", defaultInput: nil))
        let player = h.explicit(1, .playback)
        h.activate(player)
        _ = h.play(player)
        #expect(h.engine.nowPlaying == player)
        let unplug = h.send(.deviceRemoved(uid: "headphones"))
        #expect(unplug.routeReasons(player) == [.oldDeviceUnavailable], "the route change comes first")
        #expect(unplug.contains(.interruptionBegan(player, reason: .routeDisconnected, method: .sessionAPI)))
        #expect(unplug.contains(.pauseForRouteLoss(player, method: .unlink)), "held: nothing leaks to the speaker")
        #expect(h.activity(player) == .inactive, "an interruption is a deactivation; no ended follows")
        #expect(h.activate(player).contains(.activated(player)), "its user plays again")

        h.send(.deviceAdded(Self.headphones))
        h.send(.setPreferences(player, SessionPreferences(prefersInterruptionOnRouteDisconnect: false)))
        let again = h.send(.deviceRemoved(uid: "headphones"))
        #expect(again.routeReasons(player) == [.oldDeviceUnavailable])
        #expect(!again.began(player), "opted out: only the route change; the app pauses itself")
        #expect(h.activity(player) == .active)
    }

    @Test func aMixablePlayerOnlyHearsTheRouteChange() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.headphones], defaultOutput: "headphones", defaultInput: nil))
        let game = h.explicit(1, .playback, options: .mixWithOthers)
        h.activate(game)
        _ = h.play(game)
        let unplug = h.send(.deviceRemoved(uid: "headphones"))
        #expect(unplug.routeReasons(game) == [.oldDeviceUnavailable])
        #expect(!unplug.began(game), "not the current media player")
    }

    @Test func aRecordingSilencesNotificationSoundsUnlessItAllowsThem() {
        var h = EngineHarness()
        let ding = h.implicit(1, .ambient, class: .notification)
        let music = h.implicit(2, .playback)
        let memo = h.explicit(3, .record)
        #expect(h.activate(memo).contains(.setSilenced(ding, true)))
        #expect(h.engine.snapshot(of: music)?.isSilenced == false, "only system sounds")
        #expect(h.deactivate(memo).contains(.setSilenced(ding, false)))

        h.send(.setPreferences(memo, SessionPreferences(allowsSystemSoundsDuringRecording: true)))
        let allowed = h.activate(memo)
        #expect(!allowed.contains(.setSilenced(ding, true)))
        #expect(h.send(.setPreferences(memo, .default)).contains(.setSilenced(ding, true)), "changing its mind while recording")
        let late = h.implicit(4, .ambient, class: .notification)
        #expect(h.engine.snapshot(of: late)?.isSilenced == true, "a notification that appears meanwhile")
        h.send(.sessionRemoved(memo))
        #expect(h.engine.snapshot(of: late)?.isSilenced == false)
    }
}

/// `isBusy`: an active session may not deactivate while one of its streams runs; a paused
/// stream, an interrupted session or an implicit one are not busy.
@Suite struct BusyDeactivationTests {
    @Test func deactivatingWhileAudioRunsIsBusy() {
        var h = EngineHarness()
        let player = h.explicit(1, .playback)
        h.activate(player)
        let stream = h.play(player)
        #expect(h.engine.isBusy(player))
        #expect(h.deactivate(player) == [.failed(player, .isBusy)])
        #expect(h.activity(player) == .active, "still active")
        h.send(.streamPausedByUser(stream))
        #expect(!h.engine.isBusy(player), "paused by its user")
        #expect(h.deactivate(player).contains(.deactivated(player)))
    }

    @Test func anInterruptedSessionIsNotBusy() {
        var h = EngineHarness(.strict)
        let player = h.explicit(1, .playback)
        h.activate(player)
        _ = h.play(player)
        let call = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        h.activate(call)
        #expect(h.activity(player) == .interrupted)
        #expect(!h.engine.isBusy(player), "its audio is stopped already")
        #expect(h.deactivate(player).contains(.deactivated(player)))
    }
}
