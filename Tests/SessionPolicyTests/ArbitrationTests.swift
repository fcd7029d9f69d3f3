import Testing
@testable import SessionPolicy

/// The control tower: non-mixable vs mixable, duckOthers, spoken audio, priority classes,
/// delayed focus, last activation wins — in both profiles.
@Suite struct ArbitrationTests {
    @Test func strictNonMixableActivationInterruptsOtherNonMixable() {
        var h = EngineHarness(.strict)
        let music = h.explicit(1, .playback)
        let video = h.explicit(2, .playback)
        h.activate(music)
        let decisions = h.activate(video)
        #expect(decisions.contains(.activated(video)))
        #expect(decisions.began(music))
        #expect(h.activity(music) == .interrupted)
        #expect(h.engine.playingSessions == [video])
    }

    @Test func strictMixableSessionsPlayAlong() {
        var h = EngineHarness(.strict)
        let game = h.explicit(1, .ambient)
        let coop = h.explicit(2, .playback, options: .mixWithOthers)
        let music = h.explicit(3, .playback)
        h.activate(game)
        h.activate(coop)
        let decisions = h.activate(music)
        #expect(!decisions.began(game) && !decisions.began(coop))
        #expect(Set(h.engine.playingSessions) == [game, coop, music])
    }

    @Test func strictSoloAmbientIsDefaultAndInterrupts() {
        var h = EngineHarness(.strict)
        let music = h.explicit(1, .playback)
        let unconfigured = SessionID(2)
        h.send(.sessionCreated(unconfigured, SessionDescriptor(kind: .explicit, app: "x")))
        #expect(h.engine.snapshot(of: unconfigured)?.category == .soloAmbient)
        h.activate(music)
        #expect(h.activate(unconfigured).began(music))
    }

    @Test func strictMixableActivationDoesNotInterruptNonMixable() {
        var h = EngineHarness(.strict)
        let music = h.explicit(1, .playback)
        let game = h.explicit(2, .ambient)
        h.activate(music)
        #expect(!h.activate(game).began(music))
        // ...and a later non-mixable one does not interrupt the mixable game.
        let other = h.explicit(3, .soloAmbient)
        let decisions = h.activate(other)
        #expect(decisions.began(music) && !decisions.began(game))
    }

    @Test func desktopLetsTwoMusicPlayersPlayTogether() {
        var h = EngineHarness(.desktop)
        let a = h.implicit(1, .playback)
        let b = h.implicit(2, .playback)
        _ = h.play(a)
        let decisions = h.send(.streamStarted(b, StreamID(.playback, 7)))
        #expect(!decisions.began(a))
        #expect(Set(h.engine.playingSessions) == [a, b])
    }

    @Test func duckOthersDucksForTheWholeActivePeriodThenRestoresExactly() {
        var h = EngineHarness(.strict)
        let music = h.explicit(1, .playback)
        let prompt = h.explicit(2, .playback, options: .duckOthers)
        h.activate(music)
        let on = h.activate(prompt)
        #expect(on.gains(music) == [0.3])
        #expect(!on.began(music))
        #expect(h.gain(music) == 0.3)
        #expect(h.gain(prompt) == 1.0)
        let off = h.deactivate(prompt)
        #expect(off.gains(music) == [1.0])
        #expect(h.gain(music) == 1.0)
    }

    @Test func interruptSpokenAudioPausesSpokenAudioAndMixesWithTheRest() {
        var h = EngineHarness(.strict)
        let podcast = h.explicit(1, .playback, mode: .spokenAudio)
        let game = h.explicit(2, .ambient)
        let nav = h.explicit(3, .playback, mode: .voicePrompt, options: [.duckOthers, .interruptSpokenAudioAndMixWithOthers])
        h.activate(podcast)
        h.activate(game)
        let decisions = h.activate(nav)
        #expect(decisions.began(podcast))
        #expect(!decisions.began(game))
        #expect(decisions.gains(game) == [0.3])
        let done = h.deactivate(nav, notifyOthers: true)
        #expect(done.ended(podcast) == .shouldResume)
        #expect(done.gains(game) == [1.0])
    }

    @Test func callOutranksMediaAndAlarmOutranksCall() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback)
        let call = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        let alarm = h.implicit(3, .playback, class: .alarm)
        _ = h.play(music)
        #expect(h.activate(call).began(music))
        let ring = h.play(alarm)
        #expect(h.log.began(call))
        #expect(h.activity(call) == .interrupted)
        #expect(h.isPlaying(alarm))
        _ = ring
    }

    @Test func lowerPriorityExplicitActivationDuringHigherFailsWithInsufficientPriority() {
        var h = EngineHarness(.desktop)
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        let player = h.explicit(2, .playback)
        h.activate(call)
        let decisions = h.activate(player)
        #expect(decisions.failure(player) == .insufficientPriority)
        #expect(!decisions.contains(.activated(player)))
        #expect(h.activity(player) == .inactive)
        #expect(h.isPlaying(call))
    }

    /// The desktop's microphone is shared: a recording goes on through a call, whether it began
    /// before the call or during it, explicit or not; a monitor recording too (it is a capture).
    @Test func onTheDesktopACallHoldsNoRecorder() {
        var h = EngineHarness(.desktop)
        let memo = h.implicit(1, .record)
        let dictation = h.explicit(2, .record)
        _ = h.play(memo, .capture)
        h.activate(dictation)
        let call = h.explicit(3, .playAndRecord, mode: .voiceChat, class: .communication)
        let music = h.implicit(4, .playback)
        _ = h.play(music)
        let decisions = h.activate(call)
        #expect(decisions.began(music), "the call still interrupts media")
        #expect(!decisions.began(memo) && !decisions.began(dictation))
        #expect(h.activity(memo) == .active && h.activity(dictation) == .active)
        let lateMemo = h.implicit(5, .record)
        let late = h.send(.streamStarted(lateMemo, StreamID(.capture, 99)))
        #expect(!late.began(lateMemo), "a recording started during the call records")
        #expect(h.activity(lateMemo) == .active)
        let lateDictation = h.explicit(6, .record)
        #expect(h.activate(lateDictation).failure(lateDictation) == nil)
        #expect(h.activity(lateDictation) == .active)
    }

    /// A session whose streams all capture is a recorder whatever its category (a monitor
    /// recording, a call app that opened its microphone first); once it plays too, it is not.
    @Test func onTheDesktopACaptureOnlySessionIsSparedUntilItPlays() {
        var h = EngineHarness(.desktop)
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        h.activate(call)
        let monitor = h.implicit(2, .playAndRecord, options: .mixWithOthers)
        #expect(!h.send(.streamStarted(monitor, StreamID(.capture, 50))).began(monitor))
        #expect(h.activity(monitor) == .active)
        let player = h.implicit(3, .playAndRecord)
        _ = h.send(.streamStarted(player, StreamID(.capture, 51)))
        #expect(h.activity(player) == .active)
        #expect(h.send(.streamStarted(player, StreamID(.playback, 52))).began(player), "it plays: the call holds it")
    }

    /// An app the rules say nothing about may be one end of a call that has opened only its
    /// speaker so far: while it opens its streams nothing holds it. If it turns out a call,
    /// it was never held; if it stays unknown, the call holds it once its window ends. A late
    /// rule (a role that arrives after the stream) ends the window at once.
    @Test func onTheDesktopAnUnknownAppIsSparedWhileItOpensItsStreams() {
        var h = EngineHarness(.desktop)
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        h.activate(call)
        let otherEnd = h.implicit(2, .soloAmbient)
        #expect(h.engine.snapshot(of: otherEnd)?.isOpening == true)
        #expect(!h.send(.streamStarted(otherEnd, StreamID(.playback, 60))).began(otherEnd), "its speaker is heard")
        _ = h.send(.streamStarted(otherEnd, StreamID(.capture, 61)))
        let becameACall = h.send(.reclassify(otherEnd, Classification(
            category: .playAndRecord, mode: .voiceChat, priorityClass: .communication)))
        #expect(!becameACall.began(otherEnd))
        #expect(h.engine.snapshot(of: otherEnd)?.isOpening == false)
        #expect(h.isPlaying(otherEnd) && h.isPlaying(call), "both ends of the call are heard")

        let beeper = h.implicit(3, .soloAmbient)
        #expect(!h.send(.streamStarted(beeper, StreamID(.playback, 62))).began(beeper))
        #expect(h.send(.openingEnded(beeper)).began(beeper), "still unknown when its window ends: the call holds it")
        #expect(h.activity(beeper) == .interrupted)

        let player = h.implicit(4, .soloAmbient)
        _ = h.send(.streamStarted(player, StreamID(.playback, 63)))
        #expect(h.send(.reclassify(player, Classification(category: .playback))).began(player), "a late role: judged at once")
        #expect(h.send(.openingEnded(player)).isEmpty)

        let known = h.implicit(5, .playback)
        #expect(h.engine.snapshot(of: known)?.isOpening == false, "the rules classified it: no window")
        #expect(h.send(.streamStarted(known, StreamID(.playback, 64))).began(known))
    }

    /// Strict judges every stream as it comes: an unknown app is held by a call at once.
    @Test func strictlyAnUnknownAppIsHeldAtOnce() {
        var h = EngineHarness(.strict)
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        h.activate(call)
        let unknown = h.implicit(2, .soloAmbient)
        #expect(h.engine.snapshot(of: unknown)?.isOpening == false)
        #expect(h.send(.streamStarted(unknown, StreamID(.playback, 60))).began(unknown))
    }

    /// Strict keeps AVAudioSession's rule: a call interrupts a recording and tells an explicit one.
    @Test func strictlyACallInterruptsARecorderAndTellsIt() {
        var h = EngineHarness(.strict)
        let dictation = h.explicit(1, .record)
        h.activate(dictation)
        let call = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(h.activate(call).began(dictation))
        #expect(h.activity(dictation) == .interrupted)
        let memo = h.explicit(3, .record)
        #expect(h.activate(memo).failure(memo) == .insufficientPriority)
    }

    @Test func implicitStreamDuringHigherIsHeldThenResumed() {
        var h = EngineHarness(.desktop)
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        let music = h.implicit(2, .playback)
        h.activate(call)
        _ = h.play(music)
        #expect(h.log.began(music))
        #expect(h.activity(music) == .interrupted)
        let end = h.deactivate(call, notifyOthers: true)
        #expect(end.ended(music) == .shouldResume)
        #expect(h.isPlaying(music))
    }

    @Test func strictLastActivationWinsBetweenEquals() {
        var h = EngineHarness(.strict)
        let a = h.implicit(1, .playback)
        let b = h.implicit(2, .playback)
        let streamA = h.play(a)
        let streamB = h.play(b)
        #expect(h.log.began(a))
        #expect(h.engine.playingSessions == [b])
        // b stops: a resumes (an implicit interrupter that simply stopped).
        let stop = h.send(.streamStopped(streamB))
        #expect(stop.ended(a) == .shouldResume)
        #expect(h.engine.playingSessions == [a])
        _ = streamA
    }

    @Test func notificationsAndNavigationDuckMediaOnDesktop() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback)
        let ding = h.implicit(2, .ambient, class: .notification)
        let nav = h.implicit(3, .playback, class: .navigation)
        _ = h.play(music)
        let d1 = h.play(ding)
        #expect(h.log.gains(music) == [0.3])
        let d2 = h.play(nav)
        // Two duckers duck once (not 0.3 × 0.3); the navigation prompt ducks the notification too.
        #expect(h.gain(music) == 0.3)
        #expect(h.gain(ding) == 0.3)
        h.send(.streamStopped(d2))
        #expect(h.gain(music) == 0.3)
        #expect(h.log.gains(music) == [0.3])  // the second ducker changed nothing
        h.send(.streamStopped(d1))
        #expect(h.gain(music) == 1.0)
        #expect(h.log.gains(music).last == 1.0)
    }

    @Test func gamesMixWithMusicOnDesktop() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback)
        let game = h.implicit(2, .soloAmbient)
        _ = h.play(music)
        _ = h.play(game)
        #expect(Set(h.engine.playingSessions) == [music, game])
        #expect(!h.log.began(music))
    }

    @Test func reclassifyingAnActiveSessionReArbitrates() {
        var h = EngineHarness(.desktop)
        let music = h.implicit(1, .playback)
        let other = h.implicit(2, .playback)
        _ = h.play(music)
        _ = h.play(other)
        let decisions = h.send(.reclassify(other, Classification(category: .playAndRecord, mode: .voiceChat, priorityClass: .communication)))
        #expect(decisions.began(music))
    }

    @Test func reconfigureAppliesANewProfile() {
        var h = EngineHarness(.desktop)
        let a = h.implicit(1, .playback)
        let b = h.implicit(2, .playback)
        _ = h.play(a)
        _ = h.play(b)
        let decisions = h.engine.reconfigure(.strict, at: Timestamp(nanoseconds: 1))
        #expect(decisions.began(a))
        #expect(h.engine.playingSessions == [b])
    }

    @Test func customPriorityClassFromRules() {
        var h = EngineHarness(.desktop)
        let screenReader = PriorityClass(name: "screenReader", priority: 35, towardLower: .duck)
        let music = h.implicit(1, .playback)
        let reader = h.implicit(2, .playback, class: screenReader)
        _ = h.play(music)
        _ = h.play(reader)
        #expect(h.gain(music) == 0.3)
        #expect(h.gain(reader) == 1.0)
    }
}
