import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// Which way a duck's ramp is carried out, deterministic: a fake backend on a virtual loop.
@Suite("GainRamps: native or stepped")
struct GainRampsTests {
    let backend = FakeBackend()
    let loop = VirtualLoop()
    let ramps: GainRamps

    init() { ramps = GainRamps(backend: backend, loop: loop) }

    @Test func aServerThatRampsGetsTheWholeRampInOneCallAndNoSteps() {
        backend.nativeRampStreams = [1]
        ramps.ramp(1, to: 0.3, over: .milliseconds(250))
        #expect(backend.nativeRamps.count == 1)
        #expect(backend.nativeRamps.first?.stream == 1)
        #expect(backend.nativeRamps.first?.ramp == DuckingRamp(from: 1.0, to: 0.3, duration: .milliseconds(250)))
        #expect(loop.timers.isEmpty, "no steps are scheduled")
        #expect(ramps.current[1] == 0.3)

        ramps.ramp(1, to: 1.0, over: .milliseconds(500))
        #expect(backend.nativeRamps.last?.ramp == DuckingRamp(from: 0.3, to: 1.0, duration: .milliseconds(500)))
        #expect(backend.nativeRamps.count == 2)
        #expect(backend.gains[1] == 1.0)
    }

    @Test func silencingIsImmediateEvenWhereTheServerRamps() {
        backend.nativeRampStreams = [1]
        ramps.ramp(1, to: 0.0, over: .zero)
        #expect(backend.nativeRamps.isEmpty)
        #expect(backend.gains[1] == 0.0)
    }

    @Test func elsewhereTheDaemonStepsIt() {
        ramps.ramp(1, to: 0.3, over: .milliseconds(250))
        #expect(backend.nativeRamps.isEmpty)
        let first = backend.gains[1] ?? 1.0
        #expect(first < 1.0 && first > 0.3, "the first step is written at once: \(first)")
        #expect(loop.timers.count == 1 && loop.timers.first?.delay == .milliseconds(10), "the next step is scheduled")
    }

    @Test func theUsersTakeoverForgetsOurFactorSoTheUnduckWritesNothing() {
        backend.nativeRampStreams = [1]
        ramps.ramp(1, to: 0.3, over: .milliseconds(250))
        ramps.assume(1.0, for: 1)
        ramps.ramp(1, to: 1.0, over: .milliseconds(500))
        #expect(backend.nativeRamps.count == 1, "only the duck: the user's volume is theirs")
    }
}
