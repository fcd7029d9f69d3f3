import Foundation
import PipeWireGraph
import PipeWireSandbox

/// The demo's own eyes on the graph: an independent PipeWire client, so what the timeline says
/// happened is what PipeWire shows, not what the daemon claims.
struct DemoObserver {
    let graph: PipeWireGraph

    init(remote: String) {
        graph = PipeWireGraph(configuration: .init(remote: remote, applicationName: "audiosessionctl-demo"))
        graph.start()
    }

    var snapshot: GraphSnapshot { graph.snapshot }

    /// The device nodes the stream named `stream` is linked to now.
    func devices(linkedTo stream: String) -> Set<String> {
        let snapshot = graph.snapshot
        guard let node = snapshot.node(named: stream) else { return [] }
        let peers = snapshot.links(of: node.id).map { $0.outputNode == node.id ? $0.inputNode : $0.outputNode }
        return Set(peers.compactMap { snapshot.nodes[$0]?.name })
    }

    /// Waits until `stream` is linked to exactly `devices`.
    func waitUntilLinked(_ stream: String, to devices: Set<String>, timeout: Duration = .seconds(10)) throws {
        try waitUntil(timeout: timeout, "\(stream) is linked to \(devices.sorted())") {
            self.devices(linkedTo: stream) == devices
        }
    }

    func stop() { graph.stop() }
}
