import Synchronization
import Testing

@testable import PipeWireGraph

/// Work still queued when the loop stopped runs on the stopping thread (`runRemainingWork()`),
/// and there it is on the loop: the loop's own thread is joined, so state confined to the loop
/// is that thread's alone. The daemon's loop-bound state checks this on every access; the
/// check stopped the daemon on SIGTERM while WirePlumber moved a stream, when the event's
/// follow-up was still queued at the stop.
@Suite struct RemainingWorkTests {
    @Test func workLeftAtTheStopRunsAsTheLoopsAndOnlyThen() {
        let loop = LoopThread(name: "remaining-work-test")
        loop.start()
        loop.stop()
        let seen = Mutex<[Bool]>([])
        loop.enqueue { seen.withLock { $0.append(loop.isOnLoopThread) } }
        #expect(!loop.isOnLoopThread, "the stopping thread before it runs the loop's work")
        loop.runRemainingWork()
        #expect(seen.withLock { $0 } == [true])
        #expect(!loop.isOnLoopThread, "and not after")
    }
}
