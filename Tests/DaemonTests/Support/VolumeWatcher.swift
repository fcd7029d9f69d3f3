import Foundation
import PipeWireGraph
import PipeWireSandbox
import Synchronization

/// An independent PipeWire client that records every `Props` value of the nodes it is asked
/// about, so a test can see a ramp's steps, not only where it ended. A node's "volume" here is
/// its own `volume` times the soft factor our ducks write (``NodeProps/duckedVolume``).
final class VolumeWatcher: Sendable {
    let graph: PipeWireGraph
    private final class History: Sendable {
        let values = Mutex<[String: [Float]]>([:])
    }

    private let history = History()

    init(_ sandbox: PrivatePipeWire) throws {
        graph = PipeWireGraph(configuration: .init(remote: sandbox.socketPath, applicationName: "test-observer"))
        let history = self.history
        graph.setObserver { event, _ in
            guard case .changed(.node(let node)) = event, let volume = node.props?.duckedVolume else { return }
            history.values.withLock { all in
                if all[node.name]?.last != volume { all[node.name, default: []].append(volume) }
            }
        }
        graph.start()
        try waitUntil(timeout: .seconds(5), "the observer is connected") { graph.isConnected }
    }

    deinit { graph.stop() }

    /// Every distinct volume seen for `node`, in order.
    func volumes(of node: String) -> [Float] { history.values.withLock { $0[node] ?? [] } }

    func node(_ name: String) -> Node? { graph.snapshot.node(named: name) }

    /// The node's `Props.volume` times our soft factor, now.
    func volume(of name: String) -> Float? { node(name)?.props?.duckedVolume }

    func waitForVolume(of name: String, _ expected: Float, timeout: Duration = .seconds(5)) throws {
        try waitUntil(timeout: timeout, "\(name) volume is \(expected) (now \(volume(of: name).map { "\($0)" } ?? "none"))") {
            volume(of: name) == expected
        }
    }
}
