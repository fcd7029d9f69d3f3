import Testing
@testable import SessionPolicy

@Suite struct DuckingRampTests {
    @Test func rampStepsEndExactlyAtTheTarget() {
        let down = DuckingRamp(from: 1.0, to: 0.3, duration: .milliseconds(250), step: .milliseconds(10))
        let steps = down.steps
        #expect(steps.count == 25)
        #expect(steps.last!.gain == 0.3)
        #expect(steps.last!.offset == .milliseconds(250))
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.gain > $1.gain })
        let up = DuckingRamp.toward(1.0, from: 0.09, over: .milliseconds(500))
        #expect(up.steps.last!.gain == 1.0)  // restore is exact, not 0.9999
        #expect(up.gain(after: .zero) == 0.09)
        #expect(up.gain(after: .seconds(1)) == 1.0)
        #expect(abs(up.gain(after: .milliseconds(250)) - 0.545) < 1e-9)
    }

    @Test func zeroDurationJumps() {
        let jump = DuckingRamp(from: 0.3, to: 1.0, duration: .zero)
        #expect(jump.steps.count == 1)
        #expect(jump.steps[0].gain == 1.0)
    }

    @Test func decisionsCarryTheConfiguredRamps() {
        var configuration = PolicyConfiguration.desktop
        configuration.duckLevel = PolicyConfiguration.linearGain(decibels: -20)
        configuration.duckRamp = .milliseconds(100)
        configuration.unduckRamp = .milliseconds(700)
        var h = EngineHarness(configuration)
        let music = h.implicit(1, .playback)
        let ding = h.implicit(2, .ambient, class: .notification)
        _ = h.play(music)
        let s = h.play(ding)
        #expect(h.log.contains { if case .setGain(music, let g, .milliseconds(100)) = $0 { abs(g - 0.1) < 1e-12 } else { false } })
        #expect(h.send(.streamStopped(s)).contains(.setGain(music, gain: 1.0, ramp: .milliseconds(700))))
    }
}
