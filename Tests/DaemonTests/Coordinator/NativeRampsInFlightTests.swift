import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// What waits for a running native ramp: newest wins, a user's change or a newer immediate
/// decision drops it, and a forgotten stream's timer is cancelled.
@Suite struct NativeRampsInFlightTests {
    let duck = WaitingRamp(volume: 0.3, ramp: DuckingRamp(from: 1.0, to: 0.3, duration: .milliseconds(250)))
    let unduck = WaitingRamp(volume: 1.0, ramp: DuckingRamp(from: 0.3, to: 1.0, duration: .milliseconds(500)))

    let loop = VirtualLoop()

    private func timer() -> VirtualLoop.Timer { loop.schedule(after: .milliseconds(500)) {} as! VirtualLoop.Timer }

    @Test func theNewestRampAskedForMeanwhileStartsWhenTheRunningOneIsDone() {
        var ramps = NativeRampsInFlight()
        #expect(!ramps.isRamping(1))
        ramps.wait(unduck, for: 1)
        #expect(!ramps.isRamping(1), "nothing waits on a stream that is not ramping")
        ramps.started(1, target: 0.3, ends: .zero, whenDone: timer())
        ramps.wait(unduck, for: 1)
        ramps.wait(duck, for: 1)
        #expect(ramps.finished(1).waiting == duck)
        #expect(!ramps.isRamping(1))
        #expect(ramps.finished(1).waiting == nil)
    }

    @Test func aUsersChangeDropsTheWaitingRampButTheRunningOneIsStillSettled() {
        var ramps = NativeRampsInFlight()
        ramps.started(1, target: 0.3, ends: .zero, whenDone: timer())
        ramps.wait(unduck, for: 1)
        ramps.dropWaiting(for: 1)
        #expect(ramps.isRamping(1))
        #expect(ramps.finished(1).waiting == nil)
    }

    /// A mute written mid-ramp makes the converter report where the ramp is: those reports
    /// mean nothing, and the ramp's end is its target, not the last report.
    @Test func aMuteMidRampMakesTheTargetTheEnd() {
        var ramps = NativeRampsInFlight()
        let written = ramps.otherPropsWritten(1)
        #expect(!written, "not ramping: reports are real")
        ramps.started(1, target: 1.0, ends: .zero, whenDone: timer())
        #expect(!ramps.reportsMidRamp(1))
        let writtenWhileRamping = ramps.otherPropsWritten(1)
        #expect(writtenWhileRamping)
        #expect(ramps.reportsMidRamp(1))
        ramps.wait(duck, for: 1)
        let (waiting, reached) = ramps.finished(1)
        #expect(waiting == duck && reached == 1.0)
        #expect(!ramps.reportsMidRamp(1))
        ramps.started(1, target: 0.3, ends: .zero, whenDone: timer())
        #expect(ramps.finished(1).reachedIfUnreported == nil, "no mute meanwhile: the reports say")
    }

    @Test func forgettingOrRestartingCancelsTheTimer() {
        var ramps = NativeRampsInFlight()
        let first = timer()
        ramps.started(1, target: 0.3, ends: .zero, whenDone: first)
        let second = timer()
        ramps.started(1, target: 0.3, ends: .zero, whenDone: second)
        #expect(first.cancelled && !second.cancelled)
        ramps.forget(1)
        #expect(second.cancelled && !ramps.isRamping(1))
        let third = timer()
        ramps.started(2, target: 0.3, ends: .zero, whenDone: third)
        ramps.removeAll()
        #expect(third.cancelled && !ramps.isRamping(2))
    }
}
