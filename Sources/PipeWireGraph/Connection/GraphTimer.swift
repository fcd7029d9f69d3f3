import CPipeWire
import PipeWireShim
import Synchronization

/// CLOCK_MONOTONIC in nanoseconds: the clock of the loop's timers, and the one PipeWire's
/// drivers time their cycles with (not the daemon's loop clock).
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

extension Duration {
    /// What a loop timer is armed with: whole nanoseconds, none below zero.
    var timerNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}

/// A one-shot timer on PipeWire's loop (a timerfd source of the loop, no thread of its own):
/// `work` runs on the loop thread, in order with graph events, unless cancelled first.
/// Armed only while pending, so pending nothing means waking for nothing.
// Unchecked: `source` is created, fired and destroyed on the loop thread only; `finished` is atomic.
public final class GraphTimer: @unchecked Sendable {
    private let loopThread: LoopThread
    private let work: @Sendable () -> Void
    /// Set by `cancel()` or by firing; work runs only for the one that sets it first.
    private let finished = Atomic<Bool>(false)
    /// The loop source; created, fired and destroyed on the loop thread only. While it
    /// exists it holds a reference to the timer (released when it is destroyed).
    private var source: UnsafeMutablePointer<spa_source>?

    init(loopThread: LoopThread, work: @escaping @Sendable () -> Void) {
        self.loopThread = loopThread
        self.work = work
    }

    /// Stops the timer: once `cancel()` returns, `work` will not start (if it is running right
    /// now on the loop thread, it finishes). Safe from any thread, and more than once.
    public func cancel() {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loopThread.perform { [self] in destroySource() }
    }

    /// On the loop thread: adds the source and arms it for `nanoseconds` from now.
    func arm(nanoseconds: UInt64) {
        guard !finished.load(ordering: .acquiring), source == nil else { return }
        source = pws_loop_add_timer(
            loopThread.loop,
            { data, _ in
                guard let data else { return }
                Unmanaged<GraphTimer>.fromOpaque(data).takeUnretainedValue().fire()
            }, Unmanaged.passRetained(self).toOpaque())
        if let source { _ = pws_loop_arm_timer(loopThread.loop, source, nanoseconds) }
    }

    private func fire() {
        destroySource()
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        work()
    }

    private func destroySource() {
        guard let source else { return }
        self.source = nil
        pws_loop_destroy_source(loopThread.loop, source)
        Unmanaged.passUnretained(self).release()
    }
}
