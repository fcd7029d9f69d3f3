import Foundation
import PipeWireGraph
import PipeWireSandbox
import Synchronization
import Testing

extension PipeWireIntegration {
    /// `stop()` while the loop thread is busy: the loop's last turn runs what else was ready
    /// beside the stop request, and that work must still know it is on the loop thread.
    @Suite struct Stopping {
        /// The daemon's exit, reduced to its two threads. `stop()` asks the loop to stop and
        /// joins it; PipeWire clears its `running` flag on the loop thread at the start of that
        /// last turn, so `pw_thread_loop_in_thread` answers false there for the rest of it. Work
        /// that turn runs (a server event, a timer, queued work) then took itself for another
        /// thread's and waited for the lock `stop()` holds while it joins: a deadlock, the
        /// daemon hung on SIGTERM until systemd killed it.
        ///
        /// Deterministic: a timer's work holds the loop thread until the stopping thread waits
        /// in the join, then queues more work, whose wake-up is ready after the stop request's.
        @Test func workInTheLoopsLastTurnRunsOnItAndStopReturns() throws {
            let sandbox = try PrivatePipeWire()
            defer { sandbox.stop() }
            let graph = GraphHarness.makeGraph(remote: sandbox.socketPath, logs: LogRecorder())
            let synced = Atomic<Bool>(false)
            graph.setObserver { event, _ in if event == .initialSyncComplete { synced.store(true, ordering: .releasing) } }
            graph.start()
            try waitUntil(timeout: .seconds(10), "the graph is synced") { synced.load(ordering: .acquiring) }

            let holding = DispatchSemaphore(value: 0)
            let released = DispatchSemaphore(value: 0)
            let lastTurn = Mutex<(ran: Bool, inline: Bool)>((false, false))
            let timer = graph.schedule(after: .milliseconds(1)) {
                holding.signal()
                released.wait()
                graph.performLater {
                    // On the loop thread: `perform` runs at once here, wherever the loop is.
                    let inline = Atomic<Bool>(false)
                    graph.perform { inline.store(true, ordering: .releasing) }
                    lastTurn.withLock { $0 = (true, inline.load(ordering: .acquiring)) }
                }
            }
            _ = timer
            #expect(holding.wait(timeout: .now() + TestTime.scaledInterval(.seconds(5))) == .success)

            let stopper = Mutex<Int?>(nil)  // the stopping thread's kernel task id
            let stopped = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                stopper.withLock { $0 = Self.currentTaskID() }
                graph.stop()
                stopped.signal()
            }
            try waitUntil(timeout: .seconds(5), "stop() waits to join the loop thread") {
                guard let task = stopper.withLock({ $0 }) else { return false }
                return Self.isWaitingInFutex(task: task)
            }
            released.signal()

            let returned = stopped.wait(timeout: .now() + TestTime.scaledInterval(.seconds(5))) == .success
            // Without the fix the stopping thread and the loop thread stay blocked for good
            // (both retain the graph; nothing else touches it).
            #expect(returned, "stop() returned: the loop's last turn did not wait for the lock stop() holds")
            guard returned else { return }
            let (ran, inline) = lastTurn.withLock { $0 }
            #expect(ran, "the work queued before the stop ran")
            #expect(inline, "on the loop thread, in its last turn, `perform` ran at once")
        }

        /// The calling thread's task id, from `/proc/thread-self` ("PID/task/TID").
        static func currentTaskID() -> Int? {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else { return nil }
            return target.split(separator: "/").last.flatMap { Int($0) }
        }

        /// Whether the task sleeps in `futex` (a join, a lock): its state and its system call.
        static func isWaitingInFutex(task: Int) -> Bool {
            #if arch(x86_64)
            let futex = 202
            #elseif arch(arm64)
            let futex = 98
            #endif
            let directory = "/proc/self/task/\(task)"
            guard let stat = try? String(contentsOfFile: "\(directory)/stat", encoding: .utf8),
                let call = try? String(contentsOfFile: "\(directory)/syscall", encoding: .utf8)
            else { return false }
            let state = stat.split(separator: ")").last?.split(separator: " ").first
            return state == "S" && call.split(separator: " ").first.flatMap { Int($0) } == futex
        }
    }
}
