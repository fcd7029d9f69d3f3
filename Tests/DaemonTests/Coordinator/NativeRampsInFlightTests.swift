import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// What waits for a running native ramp: newest wins, a user's change or a newer immediate
/// decision drops it, and a forgotten stream's timer is cancelled.
@Suite struct NativeRampsInFlightTests {
    let duck = DuckingRamp(from: 1.0, to: 0.3, duration: .milliseconds(250))
    let unduck = DuckingRamp(from: 0.3, to: 1.0, duration: .milliseconds(500))

    private func timer() -> FakeBackend.Timer { FakeBackend.Timer(delay: .milliseconds(500)) {} }

    @Test func theNewestRampAskedForMeanwhileStartsWhenTheRunningOneIsDone() {
        var ramps = NativeRampsInFlight()
        #expect(!ramps.isRamping(1))
        ramps.wait(unduck, for: 1)
        #expect(!ramps.isRamping(1), "nothing waits on a stream that is not ramping")
        ramps.started(1, whenDone: timer())
        ramps.wait(unduck, for: 1)
        ramps.wait(duck, for: 1)
        #expect(ramps.finished(1) == duck)
        #expect(!ramps.isRamping(1))
        #expect(ramps.finished(1) == nil)
    }

    @Test func aUsersChangeDropsTheWaitingRampButTheRunningOneIsStillSettled() {
        var ramps = NativeRampsInFlight()
        ramps.started(1, whenDone: timer())
        ramps.wait(unduck, for: 1)
        ramps.dropWaiting(for: 1)
        #expect(ramps.isRamping(1))
        #expect(ramps.finished(1) == nil)
    }

    @Test func forgettingOrRestartingCancelsTheTimer() {
        var ramps = NativeRampsInFlight()
        let first = timer()
        ramps.started(1, whenDone: first)
        let second = timer()
        ramps.started(1, whenDone: second)
        #expect(first.cancelled && !second.cancelled)
        ramps.forget(1)
        #expect(second.cancelled && !ramps.isRamping(1))
        let third = timer()
        ramps.started(2, whenDone: third)
        ramps.removeAll()
        #expect(third.cancelled && !ramps.isRamping(2))
    }
}
