import PulseAudioServer
import SessionPolicy

/// The daemon's loop on libpulse's loop thread: timers are time events of that loop (none
/// pending: no wake-ups), and every piece of work is ordered with the server's events.
final class PulseAudioLoop: DaemonLoop {
    private let connection: PulseConnection
    private let clock = MonotonicClock()

    init(connection: PulseConnection) {
        self.connection = connection
    }

    var now: Timestamp { clock.now }

    var isCurrent: Bool { connection.isOnLoopThread }

    func perform(_ work: @escaping @Sendable () -> Void) { connection.perform(work) }

    func performLater(_ work: @escaping @Sendable () -> Void) { connection.performLater(work) }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        PulseLoopTimer(connection.schedule(after: delay, work))
    }
}

private final class PulseLoopTimer: ScheduledWork, Sendable {
    private let timer: PulseTimer

    init(_ timer: PulseTimer) {
        self.timer = timer
    }

    func cancel() { timer.cancel() }
}
