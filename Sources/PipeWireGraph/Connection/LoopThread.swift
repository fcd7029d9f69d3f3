import CPipeWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import PipeWireShim
import Synchronization

/// The libpipewire loop thread, and the one safe way to hand it work.
///
/// Every `pw_*` call happens on this thread. Other threads enqueue closures into a
/// mutex-guarded queue and signal an eventfd source that drains it on the loop thread
/// (`pw_loop_invoke` is single-writer on 0.3.65 and unsafe from many threads).
// Unchecked: `wakeSource` is set in `init` and destroyed in `deinit`, when no other thread holds
// the loop; the queue and the lifecycle are `Mutex`es, the running thread an atomic.
final class LoopThread: @unchecked Sendable {
    let threadLoop: OpaquePointer
    let loop: UnsafeMutablePointer<pw_loop>
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private var wakeSource: UnsafeMutablePointer<spa_source>?
    private let state = Mutex<State>(.idle)
    /// The loop thread, from its first turn until `stop()` has joined it (0: none). What
    /// `isOnLoopThread` reads instead of `pw_thread_loop_in_thread`, which also checks the
    /// loop's `running` flag: `pw_thread_loop_stop` has the loop thread clear it at the start
    /// of its last turn, and for the rest of that turn (a server event, a timer, our queue that
    /// were ready beside the stop request) the loop thread took itself for another thread. Its
    /// work then waited for the lock that `PipeWireGraph.stop()` holds while it joins this
    /// thread: the daemon hung on SIGTERM.
    private let runningThread = Atomic<UInt>(0)

    private enum State { case idle, running, stopped }

    init(name: String) {
        PipeWireLibrary.initialize()
        guard let threadLoop = pw_thread_loop_new(name, nil) else {
            fatalError("pw_thread_loop_new failed: out of memory")
        }
        self.threadLoop = threadLoop
        self.loop = pw_thread_loop_get_loop(threadLoop)
        wakeSource = pws_loop_add_event(
            loop,
            { data, _ in
                guard let data else { return }
                let thread = Unmanaged<LoopThread>.fromOpaque(data).takeUnretainedValue()
                thread.noteLoopThread()
                thread.drain()
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        stop()
        if let wakeSource { pws_loop_destroy_source(loop, wakeSource) }
        pw_thread_loop_destroy(threadLoop)
    }

    func start() {
        let shouldStart = state.withLock { state in
            guard case .idle = state else { return false }
            state = .running
            return true
        }
        if shouldStart { pw_thread_loop_start(threadLoop) }
    }

    /// Stops and joins the thread. Work still queued waits for `runRemainingWork()`.
    func stop() {
        let wasRunning = state.withLock { state in
            defer { state = .stopped }
            if case .running = state { return true }
            return false
        }
        if wasRunning {
            pw_thread_loop_stop(threadLoop)
            runningThread.store(0, ordering: .releasing)  // joined: its id may be reused
        }
    }

    /// After `stop()`: runs what was still queued on the caller's thread (the session is torn
    /// down by then, so actions are no-ops and waiters are released). With the loop's own thread
    /// joined, the caller is the loop thread for that while: the work runs as it would on a
    /// turn of the loop, and state confined to the loop is the caller's alone.
    func runRemainingWork() {
        runningThread.store(pthread_self(), ordering: .releasing)
        defer { runningThread.store(0, ordering: .releasing) }
        drain()
    }

    /// Whether the caller is the loop thread, until its very last turn is over.
    var isOnLoopThread: Bool {
        let loopThread = runningThread.load(ordering: .acquiring)
        return loopThread != 0 && pthread_equal(loopThread, pthread_self()) != 0
    }

    /// On the loop thread: the first thing it runs is our queue (`start()` finds the
    /// connection's first work queued), so it is known before any other callback of ours.
    private func noteLoopThread() {
        let current = pthread_self()
        if runningThread.load(ordering: .relaxed) != current { runningThread.store(current, ordering: .releasing) }
    }

    /// Runs `work` now when called on the loop thread (keeps the caller's order), else enqueues it.
    func perform(_ work: @escaping @Sendable () -> Void) {
        if isOnLoopThread { work() } else { enqueue(work) }
    }

    /// Always runs `work` later, on the loop thread, after the work already queued.
    func enqueue(_ work: @escaping @Sendable () -> Void) {
        // One signal per batch: work added to a non-empty queue is drained with it (drain
        // loops until the queue is empty), so a burst costs one eventfd write, not one each.
        let wasEmpty = queue.withLock { queue in
            queue.append(work)
            return queue.count == 1
        }
        if wasEmpty, let wakeSource { _ = pws_loop_signal_event(loop, wakeSource) }
    }

    private func drain() {
        while true {
            let batch = queue.withLock { queue -> [@Sendable () -> Void] in
                defer { queue.removeAll() }
                return queue
            }
            if batch.isEmpty { return }
            for work in batch { work() }
        }
    }
}

/// `pw_init` once per process.
enum PipeWireLibrary {
    private static let initialized = Mutex(false)

    static func initialize() {
        initialized.withLock { done in
            guard !done else { return }
            pw_init(nil, nil)
            done = true
        }
    }
}
