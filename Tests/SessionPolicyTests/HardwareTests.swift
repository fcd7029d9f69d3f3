import Testing
@testable import SessionPolicy

/// Reference §7: preferred sample rate and I/O buffer duration → one system choice.
@Suite struct HardwareTests {
    @Test func dawGetsItsValuesWhileActiveAndDefaultsComeBack() {
        var h = EngineHarness()
        let daw = h.explicit(1, .playAndRecord)
        h.send(.setPreferredHardware(daw, HardwareWish(sampleRate: 96_000, ioBufferDuration: 64.0 / 96_000)))
        #expect(h.log.hardware.isEmpty)  // a hint, applied at activation
        #expect(h.activate(daw).hardware == [HardwareChoice(sampleRate: 96_000, quantum: 64)])
        #expect(h.deactivate(daw).hardware == [.systemDefault])
    }

    @Test func nonMixableTakesPrecedenceOverMixable() {
        var h = EngineHarness()
        let player = h.explicit(1, .playback)
        let game = h.explicit(2, .ambient)
        h.send(.setPreferredHardware(player, HardwareWish(sampleRate: 48_000)))
        h.send(.setPreferredHardware(game, HardwareWish(sampleRate: 44_100)))
        h.activate(player)
        h.activate(game)  // newer, but mixable
        #expect(h.engine.hardwareChoice.sampleRate == 48_000)
    }

    @Test func amongEqualsTheMostRecentlyActivatedWins() {
        var h = EngineHarness()
        let a = h.implicit(1, .playback)
        let b = h.implicit(2, .playback)
        h.send(.setPreferredHardware(a, HardwareWish(ioBufferDuration: 0.005)))
        h.send(.setPreferredHardware(b, HardwareWish(ioBufferDuration: 0.02)))
        _ = h.play(a)
        #expect(h.engine.hardwareChoice.quantum == 256)  // 240 frames -> 256
        let sb = h.play(b)
        #expect(h.engine.hardwareChoice.quantum == 1024)  // 960 -> 1024
        h.send(.streamStopped(sb))
        #expect(h.engine.hardwareChoice.quantum == 256)
    }

    @Test func quantumRoundsToAPowerOfTwoAndClamps() {
        let arbiter = HardwareArbiter(limits: HardwareLimits())
        #expect(arbiter.quantum(duration: 0.005, rate: 48_000) == 256)
        #expect(arbiter.quantum(duration: 0.02, rate: 44_100) == 1024)  // 882
        #expect(arbiter.quantum(duration: 0.0001, rate: 48_000) == 32)
        #expect(arbiter.quantum(duration: 0.5, rate: 48_000) == 8192)
        #expect(arbiter.quantum(duration: 64.0 / 48_000, rate: 48_000) == 64)
        #expect(arbiter.quantum(duration: 90.0 / 48_000, rate: 48_000) == 64)  // below 64·√2
        #expect(arbiter.quantum(duration: 91.0 / 48_000, rate: 48_000) == 128)
        #expect(arbiter.snappedRate(47_000) == 48_000)
        #expect(arbiter.snappedRate(8_000) == 8_000)
    }

    /// On a graph that allows only the usual rates, a rate it does not allow runs where the
    /// resampling is simplest, as PipeWire would run it: 8 kHz speech (flite's stream) at
    /// 48 kHz, where music already plays, not at the nearer 44.1 kHz, which forced a rate switch
    /// under the music while the speech drained (PipeWire 1.6.9 then never finished the drain).
    @Test func aRateTheGraphDoesNotAllowRunsAtTheAllowedRateSharingMostWithIt() {
        let arbiter = HardwareArbiter(limits: HardwareLimits(allowedSampleRates: [44_100, 48_000, 88_200, 96_000]))
        #expect(arbiter.snappedRate(8_000) == 48_000)
        #expect(arbiter.snappedRate(16_000) == 48_000)
        #expect(arbiter.snappedRate(11_025) == 44_100)
        #expect(arbiter.snappedRate(22_050) == 44_100)
        #expect(arbiter.snappedRate(32_000) == 96_000)
        #expect(arbiter.snappedRate(47_000) == 48_000)
        #expect(arbiter.snappedRate(44_100) == 44_100)
        #expect(arbiter.snappedRate(192_000) == 96_000)  // none above: the nearest
    }

    @Test func actualValuesAreReportedToSessions() {
        var h = EngineHarness()
        let app = h.explicit(1, .playback)
        let implicit = h.implicit(2, .playback)
        let report = h.send(.hardwareObserved(sampleRate: 48_000, quantum: 960))
        #expect(report == [.reportHardware(app, HardwareValues(sampleRate: 48_000, ioBufferDuration: 0.02))])
        #expect(h.engine.actualHardware() == HardwareValues(sampleRate: 48_000, ioBufferDuration: 0.02))
        _ = implicit
    }

    @Test func theSameObservationAgainTellsNobody() {
        var h = EngineHarness()
        _ = h.explicit(1, .playback)
        h.send(.hardwareObserved(sampleRate: 48_000, quantum: 256))
        #expect(h.send(.hardwareObserved(sampleRate: 48_000, quantum: 256)).isEmpty)
    }

    /// Nothing runs: a session reads what the graph will run at, the choice first.
    @Test func anIdleGraphFallsBackToTheChoice() {
        var h = EngineHarness()
        let daw = h.explicit(1, .playAndRecord)
        h.send(.setPreferredHardware(daw, HardwareWish(sampleRate: 96_000, ioBufferDuration: 64.0 / 96_000)))
        h.activate(daw)
        h.send(.hardwareObserved(sampleRate: 48_000, quantum: 1024))  // before the forced values took
        #expect(h.engine.actualHardware() == HardwareValues(sampleRate: 48_000, ioBufferDuration: 1024.0 / 48_000))
        let idle = h.send(.hardwareIdle)
        let chosen = HardwareValues(sampleRate: 96_000, ioBufferDuration: 64.0 / 96_000)
        #expect(idle == [.reportHardware(daw, chosen)])
        #expect(h.engine.observedHardware == nil)
        #expect(h.engine.actualHardware() == chosen)
    }

    /// While nothing runs, what a session reads is the choice: it hears when that changes.
    @Test func whileNothingRunsANewChoiceIsReported() {
        var h = EngineHarness()
        let daw = h.explicit(1, .playAndRecord)
        h.send(.setPreferredHardware(daw, HardwareWish(ioBufferDuration: 256.0 / 48_000)))
        let chosen = HardwareValues(sampleRate: 48_000, ioBufferDuration: 256.0 / 48_000)
        #expect(h.activate(daw).contains(.reportHardware(daw, chosen)))
        h.send(.hardwareObserved(sampleRate: 48_000, quantum: 1024))  // the graph runs, not yet at the choice
        #expect(!h.deactivate(daw).contains { if case .reportHardware = $0 { true } else { false } },
                "a running graph is observed, not assumed to follow the choice")
    }

    @Test func anIdleGraphFallsBackToTheDefaults() {
        var h = EngineHarness()
        let app = h.explicit(1, .playback)
        h.send(.hardwareObserved(sampleRate: 44_100, quantum: 256))
        #expect(h.send(.hardwareIdle) == [.reportHardware(app, HardwareValues(sampleRate: 48_000, ioBufferDuration: 1024.0 / 48_000))])
        // Already idle, or idle on the very values it ran at: nothing to tell.
        #expect(h.send(.hardwareIdle).isEmpty)
        h.send(.hardwareObserved(sampleRate: 48_000, quantum: 1024))
        #expect(h.send(.hardwareIdle).isEmpty)
    }

    @Test func losingTheGraphForgetsItsClock() {
        var h = EngineHarness()
        let app = h.explicit(1, .playback)
        h.send(.hardwareObserved(sampleRate: 44_100, quantum: 512))
        let lost = h.send(.graphLost)
        #expect(lost.contains(.reportHardware(app, HardwareValues(sampleRate: 48_000, ioBufferDuration: 1024.0 / 48_000))))
        #expect(h.engine.observedHardware == nil)
    }

    @Test func badWishesAreRefused() {
        var h = EngineHarness()
        let app = h.explicit(1, .playback)
        #expect(h.send(.setPreferredHardware(app, HardwareWish(sampleRate: -1))).failure(app) == .badParam)
        #expect(h.send(.setPreferredHardware(app, HardwareWish(ioBufferDuration: 0))).failure(app) == .badParam)
    }

    @Test func arbitrationCanBeTurnedOff() {
        var configuration = PolicyConfiguration.desktop
        configuration.hardwareArbitration = false
        var h = EngineHarness(configuration)
        let daw = h.explicit(1, .playAndRecord)
        h.send(.setPreferredHardware(daw, HardwareWish(sampleRate: 96_000)))
        #expect(h.activate(daw).hardware.isEmpty)
    }
}

/// Apps without the session API: what their stream asks for is a wish only when it asks for
/// less than the default quantum.
@Suite struct StreamHardwareRequestTests {
    let limits = HardwareLimits()  // 1024 frames at 48 kHz: 21.3 ms

    @Test func aSmallBufferIsAWishAndBringsItsRate() {
        let wish = HardwareWish(implying: StreamHardwareRequest(bufferFrames: 64, bufferRate: 96_000, sampleRate: 96_000), limits: limits)
        #expect(wish == HardwareWish(sampleRate: 96_000, ioBufferDuration: 64.0 / 96_000))
    }

    @Test func theDefaultRateIsNoWish() {
        let wish = HardwareWish(implying: StreamHardwareRequest(bufferFrames: 256, bufferRate: 48_000, sampleRate: 48_000), limits: limits)
        #expect(wish == HardwareWish(ioBufferDuration: 256.0 / 48_000))
    }

    @Test func whatNearlyEveryClientAsksIsLeftToTheServer() {
        // pw-cat's 100 ms, and a buffer of exactly the default quantum.
        #expect(HardwareWish(implying: StreamHardwareRequest(bufferFrames: 4800, bufferRate: 48_000), limits: limits) == nil)
        #expect(HardwareWish(implying: StreamHardwareRequest(bufferFrames: 1024, bufferRate: 48_000), limits: limits) == nil)
        #expect(HardwareWish(implying: StreamHardwareRequest(bufferFrames: 0, bufferRate: 48_000), limits: limits) == nil)
    }
}
