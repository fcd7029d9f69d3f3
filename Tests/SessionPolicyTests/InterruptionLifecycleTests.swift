import Testing
@testable import SessionPolicy

/// Interruption began / ended rules (reference §4–5, the guide's call lifecycle).
@Suite struct InterruptionLifecycleTests {
    @Test func callDeclinedMusicResumesWithShouldResume() {
        var h = EngineHarness(.desktop)
        let music = h.explicit(1, .playback)
        let voip = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        h.activate(music)
        let ring = h.activate(voip)
        #expect(ring.contains(.interruptionBegan(music, reason: .default, method: .sessionAPI)))
        let declined = h.deactivate(voip, notifyOthers: true)
        #expect(declined.contains(.interruptionEnded(music, options: .shouldResume, method: .sessionAPI)))
        // An explicit session reactivates itself.
        #expect(h.activity(music) == .inactive)
        #expect(h.activate(music).contains(.activated(music)))
    }

    @Test func callAcceptedNoEnded() {
        var h = EngineHarness(.desktop)
        let music = h.explicit(1, .playback)
        let voip = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        h.activate(music)
        h.activate(voip)
        // The call goes on: nothing ends.
        _ = h.play(voip, .capture)
        _ = h.play(voip, .playback)
        #expect(h.log.ended(music) == nil)
        #expect(h.activity(music) == .interrupted)
    }

    @Test func deactivatingWithoutNotifyEndsWithoutShouldResume() {
        var h = EngineHarness(.desktop)
        let music = h.explicit(1, .playback)
        let voip = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        h.activate(music)
        h.activate(voip)
        let end = h.deactivate(voip)
        #expect(end.ended(music) == [])
    }

    @Test func interruptedSessionDeactivatedMeanwhileGetsNoEnded() {
        var h = EngineHarness(.desktop)
        let music = h.explicit(1, .playback)
        let voip = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        h.activate(music)
        h.activate(voip)
        h.deactivate(music)
        let end = h.deactivate(voip, notifyOthers: true)
        #expect(end.ended(music) == nil)
    }

    @Test func userPausedDuringInterruptionIsNotResumed() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback, capabilities: [.mpris, .unlink, .mute])
        let call = h.implicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        let song = h.play(music)
        let talk = h.play(call)
        #expect(h.log.contains(.interruptionBegan(music, reason: .default, method: .mpris)))
        h.send(.streamPausedByUser(song))
        let end = h.send(.streamStopped(talk))
        // Ended (so linking / mute is undone), but without shouldResume: MPRIS Play is not pressed.
        #expect(end.ended(music) == [])
        #expect(!h.isPlaying(music))
        #expect(h.activity(music) == .inactive)
    }

    @Test func implicitInterrupterThatStopsResumesWithShouldResume() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback)
        let call = h.implicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        _ = h.play(music)
        let talk = h.play(call)
        #expect(h.log.contains(.interruptionBegan(music, reason: .default, method: .unlink)))
        let end = h.send(.streamStopped(talk))
        #expect(end.contains(.interruptionEnded(music, options: .shouldResume, method: .unlink)))
        #expect(h.isPlaying(music))
    }

    @Test func nothingResumesWhileASecondInterrupterRemains() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback)
        let call1 = h.implicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        let alarm = h.implicit(3, .playback, class: .alarm)
        _ = h.play(music)
        let c = h.play(call1)
        let a = h.play(alarm)
        #expect(h.activity(call1) == .interrupted)
        let afterAlarm = h.send(.streamStopped(a))
        #expect(afterAlarm.ended(call1) == .shouldResume)
        #expect(afterAlarm.ended(music) == nil)
        #expect(h.activity(music) == .interrupted)
        let afterCall = h.send(.streamStopped(c))
        #expect(afterCall.ended(music) == .shouldResume)
        #expect(h.isPlaying(music))
    }

    @Test func resumeAfterInterruptionCanBeTurnedOff() {
        var configuration = PolicyConfiguration.desktop
        configuration.resumeAfterInterruption = false
        var h = EngineHarness(configuration)
        let music = h.implicit(1, .playback)
        let call = h.implicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        _ = h.play(music)
        let talk = h.play(call)
        #expect(h.send(.streamStopped(talk)).ended(music) == [])
        #expect(!h.isPlaying(music))
    }

    @Test func interruptionMethodFollowsConfiguredOrderAndCapabilities() {
        var configuration = PolicyConfiguration.desktop
        configuration.interruptionMethods = [.mute, .unlink]
        var h = EngineHarness(configuration)
        let music = h.implicit(1, .playback, capabilities: [.mpris, .unlink, .mute])
        let call = h.implicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        _ = h.play(music)
        _ = h.play(call)
        #expect(h.log.contains(.interruptionBegan(music, reason: .default, method: .mute)))
        h.send(.capabilitiesChanged(music, [.unlink]))
        let h2 = h.send(.streamStarted(music, StreamID(.playback, 1)))
        #expect(h2.contains(.interruptionBegan(music, reason: .default, method: .unlink)))
    }

    /// Linking handed over to another session manager mid-call: the held music is muted
    /// instead, before its hold is undone, so it never plays through the call.
    @Test func losingTheMethodOfARunningInterruptionSwapsItForTheNextOne() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback, capabilities: [.unlink, .mute])
        let call = h.implicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        _ = h.play(music)
        _ = h.play(call)
        #expect(h.log.contains(.interruptionBegan(music, reason: .default, method: .unlink)))
        let swapped = h.send(.capabilitiesChanged(music, [.mute]))
        #expect(swapped == [
            .interruptionEnded(music, options: [], method: .unlink),
            .interruptionBegan(music, reason: .default, method: .mute),
        ])
        #expect(h.send(.capabilitiesChanged(music, [.mute])).isEmpty, "no change, nothing to do")
        #expect(h.send(.sessionRemoved(call)).contains(.interruptionEnded(music, options: .shouldResume, method: .mute)))
    }

    @Test func removingTheInterrupterEndsTheInterruption() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback)
        let explicitCall = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        _ = h.play(music)
        h.activate(explicitCall)
        // An app that vanishes mid-call did not say "resume": ended without shouldResume.
        #expect(h.send(.sessionRemoved(explicitCall)).ended(music) == [])
        let game = h.implicit(3, .ambient)
        let implicitCall = h.implicit(4, .playAndRecord, mode: .voiceChat, class: .communication)
        _ = h.play(game)
        _ = h.play(implicitCall)
        // An implicit interrupter that goes away simply stopped: shouldResume.
        #expect(h.send(.sessionRemoved(implicitCall)).ended(game) == .shouldResume)
    }

    @Test func reconfiguringResumeAfterInterruptionAppliesToWaitingSessions() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback)
        let call = h.implicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        _ = h.play(music)
        let talk = h.play(call)
        var configuration = PolicyConfiguration.desktop
        configuration.resumeAfterInterruption = false
        _ = h.engine.reconfigure(configuration, at: Timestamp(nanoseconds: 1))
        #expect(h.send(.streamStopped(talk)).ended(music) == [])
        #expect(!h.isPlaying(music))
    }
}

/// A method that cannot stop a session's audio (an MPRIS player that never confirms) gives way
/// to the next one for that interruption only.
@Suite struct InterruptionFallbackTests {
    @Test func theNextMethodTakesOverAndTheEndStillResumes() {
        var h = EngineHarness()
        let player = h.implicit(1, .playback, capabilities: [.mpris, .unlink, .mute])
        _ = h.play(player)
        let call = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(h.activate(call).contains(.interruptionBegan(player, reason: .default, method: .mpris)))
        #expect(h.send(.interruptionMethodFailed(player, .mpris)) == [.interruptionBegan(player, reason: .default, method: .unlink)])
        #expect(h.send(.interruptionMethodFailed(player, .mpris)).isEmpty, "once")
        let end = h.deactivate(call, notifyOthers: true)
        #expect(end.contains(.interruptionEnded(player, options: .shouldResume, method: .unlink)))
        #expect(h.isPlaying(player))
        // The next interruption tries MPRIS first again.
        #expect(h.activate(call).contains(.interruptionBegan(player, reason: .default, method: .mpris)))
    }

    @Test func whereItCannotBeHeldItIsMuted() {
        var h = EngineHarness()
        let player = h.implicit(1, .playback, capabilities: [.mpris, .mute])  // beside WirePlumber
        _ = h.play(player)
        let call = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        h.activate(call)
        #expect(h.send(.interruptionMethodFailed(player, .mpris)) == [.interruptionBegan(player, reason: .default, method: .mute)])
    }
}
