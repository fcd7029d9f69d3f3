import Dispatch
import PipeWireGraph

/// A one-shot timer whose work runs on PipeWire's loop thread (via `PipeWireGraph.perform`),
/// so timer callbacks are ordered with graph events. Armed only while something is pending:
/// an idle daemon has no periodic wake-ups.
final class LoopTimer: ScheduledWork, @unchecked Sendable {
    private let source: DispatchSourceTimer

    init(after delay: Duration, graph: PipeWireGraph, _ work: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: LoopTimer.queue)
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        source.schedule(deadline: .now() + .nanoseconds(nanoseconds), leeway: .milliseconds(1))
        source.setEventHandler { graph.perform(work) }
        source.resume()
    }

    func cancel() { source.cancel() }

    private static let queue = DispatchQueue(label: "audiosessiond.timers")
}
