import SessionPolicy

@testable import AudioSessionDaemon

/// A ``DaemonLoop`` whose clock moves only when the test says: `advance(by:)` runs every timer
/// due in that span, in deadline order, each at its own instant. Grace periods, ramps and
/// idle detection are tested with it without sleeping. Single-threaded: the test is the loop.
final class VirtualLoop: DaemonLoop, @unchecked Sendable {
    final class Timer: ScheduledWork {
        let deadline: Timestamp
        /// The delay it was scheduled with.
        let delay: Duration
        fileprivate let order: Int
        fileprivate let work: @Sendable () -> Void
        private(set) var cancelled = false

        fileprivate init(deadline: Timestamp, delay: Duration, order: Int, work: @escaping @Sendable () -> Void) {
            self.deadline = deadline
            self.delay = delay
            self.order = order
            self.work = work
        }

        func cancel() { cancelled = true }
        fileprivate func fire() {
            cancelled = true
            work()
        }
    }

    private(set) var now = Timestamp(nanoseconds: 1_000_000_000)
    var isCurrent: Bool { true }
    private var scheduled: [Timer] = []
    private var later: [@Sendable () -> Void] = []
    private var nextOrder = 0

    func perform(_ work: @escaping @Sendable () -> Void) { work() }

    func performLater(_ work: @escaping @Sendable () -> Void) { later.append(work) }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        nextOrder += 1
        let timer = Timer(deadline: now.advanced(by: delay), delay: delay, order: nextOrder, work: work)
        scheduled.append(timer)
        return timer
    }

    /// The timers not yet fired or cancelled, soonest first.
    var timers: [Timer] {
        scheduled.filter { !$0.cancelled }.sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
    }

    /// Moves the clock `duration` on, running what was queued and every timer that falls due on
    /// the way (a timer a fired one schedules inside the span fires too).
    func advance(by duration: Duration) {
        let end = now.advanced(by: duration)
        runQueued()
        while let next = timers.first, next.deadline <= end {
            now = max(now, next.deadline)
            next.fire()
            runQueued()
        }
        now = end
        scheduled.removeAll { $0.cancelled }
    }

    /// Runs what was handed to `performLater`, as the loop's next turn would.
    func runQueued() {
        while !later.isEmpty {
            let work = later.removeFirst()
            work()
        }
    }
}
