import Foundation
import Synchronization
import Testing
@testable import AudioSessionDaemon

/// The daemon's global executor, used here as a task executor (installing it as the global
/// executor would move this whole test process onto one thread): jobs run on `swift-tasks`,
/// delayed jobs in deadline order and never early.
@Suite("Swift tasks run on one quiet thread")
struct TaskThreadTests {
    @Test func aTaskPreferringItRunsOnTheSwiftTasksThread() async {
        let name = await Task(executorPreference: TaskThread.shared) { currentThreadName() }.value
        #expect(name == "swift-tasks")
    }

    @Test func manyTasksAllRunAndEachKeepsItsOwnOrder() async {
        let log = Shared<[Int: [Int]]>([:])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask(executorPreference: TaskThread.shared) {
                    for step in 0..<20 {
                        log.withLock { $0[task, default: []].append(step) }
                        await Task.yield()
                    }
                }
            }
        }
        #expect(log.withLock { $0 }.count == 8)
        #expect(log.withLock { $0 }.values.allSatisfy { $0 == Array(0..<20) })
    }

    @Test func delayedJobsRunInDeadlineOrderAndNotBeforeTheirDeadline() async {
        let fired = Shared<[(String, Duration)]>([])
        let start = ContinuousClock.now
        let late = Task(executorPreference: DelayedOnTaskThread(by: .milliseconds(80))) {
            fired.withLock { $0.append(("80 ms", ContinuousClock.now - start)) }
        }
        let early = Task(executorPreference: DelayedOnTaskThread(by: .milliseconds(20))) {
            fired.withLock { $0.append(("20 ms", ContinuousClock.now - start)) }
        }
        _ = await (late.value, early.value)
        let runs = fired.withLock { $0 }
        #expect(runs.map(\.0) == ["20 ms", "80 ms"])
        #expect(runs.count == 2 && runs[0].1 >= .milliseconds(20) && runs[1].1 >= .milliseconds(80), "\(runs)")
    }
}

/// Hands every job to `TaskThread` to run `delay` after it was enqueued: the path the runtime's
/// delayed-enqueue hooks take (Task.sleep in the daemon).
private final class DelayedOnTaskThread: TaskExecutor {
    let nanoseconds: UInt64
    init(by delay: Duration) {
        nanoseconds = UInt64(delay.components.seconds) * 1_000_000_000 + UInt64(delay.components.attoseconds / 1_000_000_000)
    }
    func enqueue(_ job: consuming ExecutorJob) {
        TaskThread.shared.enqueue(UnownedJob(job), atMonotonic: TaskThread.monotonicNow() + nanoseconds)
    }
}

private func currentThreadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

/// A value shared with closures on other threads (a `Mutex` itself cannot be captured).
private final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { storage.withLock { body(&$0) } }
}
