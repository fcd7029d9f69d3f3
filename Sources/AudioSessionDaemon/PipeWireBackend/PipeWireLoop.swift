import PipeWireGraph
import SessionPolicy

/// The daemon's loop on PipeWire's loop thread: timers are timer sources of that loop, armed
/// only while something is pending (an idle daemon has no periodic wake-ups and no timer
/// thread), and every piece of work is ordered with graph events.
final class PipeWireLoop: DaemonLoop {
    private let graph: PipeWireGraph
    private let clock = MonotonicClock()

    init(graph: PipeWireGraph) {
        self.graph = graph
    }

    var now: Timestamp { clock.now }

    var isCurrent: Bool { graph.isOnLoopThread }

    func perform(_ work: @escaping @Sendable () -> Void) { graph.perform(work) }

    func performLater(_ work: @escaping @Sendable () -> Void) { graph.performLater(work) }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        LoopTimer(graph.schedule(after: delay, work))
    }
}

/// A one-shot timer of PipeWire's loop.
private final class LoopTimer: ScheduledWork, Sendable {
    private let timer: GraphTimer

    init(_ timer: GraphTimer) {
        self.timer = timer
    }

    func cancel() { timer.cancel() }
}
