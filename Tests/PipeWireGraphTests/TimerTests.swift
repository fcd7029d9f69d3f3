import Foundation
import PipeWireGraph
import PipeWireSandbox
import Synchronization
import Testing

extension PipeWireIntegration {
    /// Timers are sources of PipeWire's own loop: their work runs on the loop thread, in order
    /// with graph events, and a cancelled timer never runs.
    @Suite struct Timers {
        @Test func scheduledWorkRunsOnTheLoopThreadNotBeforeItsDelay() throws {
            let harness = try GraphHarness()
            let graph = harness.graph
            let result = Shared<(onLoop: Bool, elapsed: Duration)?>(nil)
            let start = ContinuousClock.now
            let timer = graph.schedule(after: .milliseconds(50)) {
                // `perform` runs inline only on the loop thread
                let ranInline = Shared(false)
                graph.perform { ranInline.withLock { $0 = true } }
                let onLoop = ranInline.withLock { $0 }
                result.withLock { $0 = (onLoop, ContinuousClock.now - start) }
            }
            _ = timer
            try waitUntil(timeout: .seconds(10), "the timer fired") { result.withLock { $0 } != nil }
            let fired = try #require(result.withLock { $0 })
            #expect(fired.onLoop)
            #expect(fired.elapsed >= .milliseconds(50), "a timer never fires early: \(fired.elapsed)")
        }

        @Test func timersFireInDeadlineOrderAndCancelledOnesNever() throws {
            let harness = try GraphHarness()
            let graph = harness.graph
            let fired = Shared<[String]>([])
            func record(_ name: String) -> @Sendable () -> Void { { fired.withLock { $0.append(name) } } }
            let late = graph.schedule(after: .milliseconds(90), record("90 ms"))
            let early = graph.schedule(after: .milliseconds(20), record("20 ms"))
            let middle = graph.schedule(after: .milliseconds(50), record("50 ms"))
            let cancelledHere = graph.schedule(after: .milliseconds(30), record("cancelled from the test thread"))
            let cancelledOnLoop = graph.schedule(after: .milliseconds(40), record("cancelled on the loop"))
            cancelledHere.cancel()
            cancelledHere.cancel()  // twice is harmless
            graph.perform { cancelledOnLoop.cancel() }
            try waitUntil(timeout: .seconds(10), "three timers fired") { fired.withLock { $0.count } >= 3 }
            // one more, later than all: the cancelled ones had their chance to (wrongly) fire
            let sentinel = graph.schedule(after: .milliseconds(30), record("sentinel"))
            try waitUntil(timeout: .seconds(10), "the sentinel fired") { fired.withLock { $0.last } == "sentinel" }
            #expect(fired.withLock { $0 } == ["20 ms", "50 ms", "90 ms", "sentinel"])
            _ = (late, early, middle, sentinel)
        }

        @Test func performLaterRunsAfterWhatTheLoopIsDoing() throws {
            let harness = try GraphHarness()
            let graph = harness.graph
            let order = Shared<[String]>([])
            let queued = DispatchSemaphore(value: 0)
            graph.perform {
                // The test thread queues its own work first (the loop may already be in here).
                queued.wait()
                graph.performLater { order.withLock { $0.append("later") } }
                graph.perform { order.withLock { $0.append("inline") } }
                order.withLock { $0.append("rest of the work") }
            }
            // queued before the first block queues anything, so it runs first
            graph.performLater { order.withLock { $0.append("from another thread") } }
            queued.signal()
            try waitUntil(timeout: .seconds(10), "everything ran") { order.withLock { $0.count } == 4 }
            #expect(order.withLock { $0 } == ["inline", "rest of the work", "from another thread", "later"])
        }
    }
}

/// A value shared with closures on other threads (a `Mutex` itself cannot be captured).
private final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { storage.withLock { body(&$0) } }
}
