import PipeWireGraph

/// A one-shot timer whose work runs on PipeWire's loop thread, so timer callbacks are ordered
/// with graph events. A timer source of the loop itself (`PipeWireGraph.schedule`), armed only
/// while something is pending: an idle daemon has no periodic wake-ups, and no timer thread.
final class LoopTimer: ScheduledWork, Sendable {
    private let timer: GraphTimer

    init(after delay: Duration, graph: PipeWireGraph, _ work: @escaping @Sendable () -> Void) {
        timer = graph.schedule(after: delay, work)
    }

    func cancel() { timer.cancel() }
}
