#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import GlobalExecutorHooks

/// Swift concurrency's global executor for the daemon process: one thread, `swift-tasks`,
/// that sleeps in the kernel (no timeout) until a job is enqueued or a delayed job is due.
///
/// Why: on Linux the default global executor is libdispatch's worker pool, and the first
/// pool worker arms libdispatch's pool monitor, a 1 s repeating timer that never stops
/// (`_dispatch_workq_monitor_pools`): an idle daemon woke up once a second for it. The
/// daemon's async code (D-Bus clients: MPRIS, logind, starting the session API) is light and
/// never blocks, so one thread runs it all; tasks keep their semantics, only where they run
/// changes. Installed by `runUntilTerminated()`, before the daemon creates any task.
// Unchecked: `ready` and `delayed` are read and written only with `lock` held.
final class TaskThread: TaskExecutor, @unchecked Sendable {
    static let shared = TaskThread()

    /// Jobs ready to run, and delayed jobs by deadline (CLOCK_MONOTONIC, ns); under `lock`.
    private var ready: [UnownedJob] = []
    private var delayed: [(deadline: UInt64, job: UnownedJob)] = []
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    private init() {
        pthread_mutex_init(lock, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(wake, &attributes)
        pthread_condattr_destroy(&attributes)
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { context in
                nameCurrentThread("swift-tasks")
                var signals = sigset_t()  // signals are for the thread that waits for them
                sigfillset(&signals)
                pthread_sigmask(SIG_BLOCK, &signals, nil)
                Unmanaged<TaskThread>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        precondition(created == 0, "cannot start the swift-tasks thread (\(created))")
        pthread_detach(thread)
    }

    // MARK: - TaskExecutor

    func enqueue(_ job: UnownedJob) {
        pthread_mutex_lock(lock)
        ready.append(job)
        pthread_cond_signal(wake)
        pthread_mutex_unlock(lock)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job))
    }

    /// Runs `job` once CLOCK_MONOTONIC reaches `deadline` (ns).
    func enqueue(_ job: UnownedJob, atMonotonic deadline: UInt64) {
        pthread_mutex_lock(lock)
        let index = delayed.firstIndex { $0.deadline > deadline } ?? delayed.endIndex
        delayed.insert((deadline, job), at: index)
        pthread_cond_signal(wake)
        pthread_mutex_unlock(lock)
    }

    // MARK: - The thread

    private func run() {
        let executor = asUnownedTaskExecutor()
        while true {
            for job in nextBatch() { job.runSynchronously(on: executor) }
        }
    }

    /// Waits until something is ready: with no timeout when nothing is delayed.
    private func nextBatch() -> [UnownedJob] {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        while true {
            let now = Self.monotonicNow()
            while let first = delayed.first, first.deadline <= now {
                ready.append(first.job)
                delayed.removeFirst()
            }
            if !ready.isEmpty {
                defer { ready.removeAll(keepingCapacity: true) }
                return ready
            }
            if let next = delayed.first?.deadline {
                var until = timespec(tv_sec: Int(next / 1_000_000_000), tv_nsec: Int(next % 1_000_000_000))
                _ = pthread_cond_timedwait(wake, lock, &until)
            } else {
                _ = pthread_cond_wait(wake, lock)
            }
        }
    }

    static func monotonicNow() -> UInt64 { now(CLOCK_MONOTONIC) }

    static func now(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

// MARK: - Installing it as the global executor

extension TaskThread {
    /// Points the Swift runtime's global-executor hooks (`swift_task_enqueueGlobal*_hook`,
    /// exported by libswift_Concurrency for exactly this) at `shared`. Process-wide and
    /// one-way: call once, before the first task.
    static func installAsGlobalExecutor() {
        let enqueue: EnqueueHook = { job, _ in TaskThread.shared.enqueue(job) }
        let enqueueWithDelay: EnqueueWithDelayHook = { delay, job, _ in
            TaskThread.shared.enqueue(job, atMonotonic: TaskThread.monotonicNow() &+ delay)
        }
        let enqueueWithDeadline: EnqueueWithDeadlineHook = { seconds, nanoseconds, _, _, clock, job, _ in
            // The deadline is on the runtime's clock `clock` (1: continuous = CLOCK_BOOTTIME,
            // 2: suspending = CLOCK_MONOTONIC); keep the time left, count it on CLOCK_MONOTONIC.
            let deadline = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, nanoseconds))
            let now = TaskThread.now(clock == 1 ? CLOCK_BOOTTIME : CLOCK_MONOTONIC)
            let left = deadline > now ? deadline - now : 0
            TaskThread.shared.enqueue(job, atMonotonic: TaskThread.monotonicNow() &+ left)
        }
        swrh_set_global_executor_hooks(
            unsafeBitCast(enqueue, to: UnsafeMutableRawPointer.self),
            unsafeBitCast(enqueueWithDelay, to: UnsafeMutableRawPointer.self),
            unsafeBitCast(enqueueWithDeadline, to: UnsafeMutableRawPointer.self))
    }

    // The hook types of swift/Runtime/ConcurrencyHooks.def (swiftcall, hence `thin`); the last
    // argument is the runtime's own implementation, which is never called here.
    private typealias EnqueueOriginal = @convention(thin) (UnownedJob) -> Void
    private typealias EnqueueHook = @convention(thin) (UnownedJob, EnqueueOriginal) -> Void
    private typealias EnqueueWithDelayOriginal = @convention(thin) (UInt64, UnownedJob) -> Void
    private typealias EnqueueWithDelayHook = @convention(thin) (UInt64, UnownedJob, EnqueueWithDelayOriginal) -> Void
    private typealias EnqueueWithDeadlineOriginal =
        @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob) -> Void
    private typealias EnqueueWithDeadlineHook =
        @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob, EnqueueWithDeadlineOriginal) -> Void
}

/// Names the calling thread (its `comm`, as ps, top and /proc show it; a new thread otherwise
/// inherits its creator's name). Through /proc/thread-self: Glibc's Swift module leaves out
/// pthread_setname_np, a GNU extension.
private func nameCurrentThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = name.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, min(15, $0.count - 1)) }
    close(descriptor)
}
