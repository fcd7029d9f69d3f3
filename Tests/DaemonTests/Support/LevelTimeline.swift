import Foundation
import PipeWireGraph
import PipeWireSandbox
import Synchronization

/// An independent listener: meters one stream node from a connection of the test's own and
/// records when it became audible or silent, to time what the daemon did against what was heard.
final class LevelTimeline: Sendable {
    let graph: PipeWireGraph
    private final class Changes: Sendable {
        let values = Mutex<[(ContinuousClock.Instant, Bool)]>([])
    }

    private let changes = Changes()

    init(_ sandbox: PrivatePipeWire) throws {
        graph = PipeWireGraph(configuration: .init(remote: sandbox.socketPath, applicationName: "test-level-timeline"))
        let changes = self.changes
        graph.setObserver { event, _ in
            guard case .levelChanged(_, let audible) = event else { return }
            changes.values.withLock { $0.append((.now, audible)) }
        }
        graph.start()
        try waitUntil(timeout: .seconds(5), "the listener is connected") { graph.isConnected }
    }

    deinit { graph.stop() }

    func listen(to node: UInt32) { graph.startMeter(node: node, threshold: 0.001) }

    /// When the last sound ended: the first silent report after the last audible one.
    var lastSilenceStart: ContinuousClock.Instant? {
        changes.values.withLock { all in
            guard let lastAudible = all.lastIndex(where: { $0.1 }) else { return nil }
            return all[(lastAudible + 1)...].first { !$0.1 }?.0
        }
    }
}
