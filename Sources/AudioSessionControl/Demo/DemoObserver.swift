import Foundation
import PipeWireGraph
import PipeWireSandbox
import Synchronization

/// The demo's own eyes on the graph: an independent PipeWire client, so what the timeline says
/// happened is what PipeWire shows, not what the daemon claims. It also keeps every stream
/// volume it saw, stamped on arrival, so a duck's ramp can be told from a jump.
struct DemoObserver {
    /// One volume (`Props.volume` times the soft factor our ducks write) as the observer received it.
    struct VolumeSample: Sendable {
        var time: ContinuousClock.Instant
        var volume: Float
    }

    let graph: PipeWireGraph
    private let sightings = Sightings()

    init(remote: String) {
        graph = PipeWireGraph(configuration: .init(remote: remote, applicationName: "audiosessionctl-demo"))
        let sightings = self.sightings
        graph.setObserver { event, _ in
            switch event {
            case .added(.node(let node)): sightings.appeared(node.id, at: .now)
            case .changed(.node(let node)): if let volume = node.props?.duckedVolume { sightings.record(volume, of: node.id, at: .now) }
            case .removed(.node(let node)): sightings.forget(node.id)  // PipeWire reuses ids
            default: break
            }
        }
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

    /// The stream node a process plays (pulse clients too: pipewire-pulse names their pid).
    func stream(ofProcess pid: Int32) -> Node? {
        snapshot.streams.first { $0.properties["application.process.id"] == String(pid) }
    }

    /// A node's volume (`Props.volume` times our soft factor) now (1.0 when it has not said: nobody changed it).
    func volume(of node: GlobalID) -> Float { snapshot.nodes[node]?.props?.duckedVolume ?? 1.0 }

    /// Waits until a node's volume is `expected`; returns when the observer saw it.
    @discardableResult
    func waitForVolume(of node: GlobalID, _ expected: Float, _ what: String, timeout: Duration = .seconds(5))
        throws -> ContinuousClock.Instant
    {
        do {
            try waitUntil(timeout: timeout, "\(what) volume is \(expected)") { volume(of: node) == expected }
        } catch {
            throw SandboxError.timeout("\(error) (it is \(volume(of: node)))")
        }
        return sightings.samples(of: node).last { $0.volume == expected }?.time ?? .now
    }

    /// Every volume value seen for a node since `start`, in order.
    func volumes(of node: GlobalID, since start: ContinuousClock.Instant) -> [VolumeSample] {
        sightings.samples(of: node).filter { $0.time >= start }
    }

    /// When the observer received a node's appearance.
    func appearance(of node: GlobalID) -> ContinuousClock.Instant? { sightings.appearance(of: node) }

    /// A value in PipeWire's `settings` metadata (`clock.force-quantum`), "0" when unset.
    func setting(_ key: String) -> String { snapshot.metadata["settings"]?.value(for: key) ?? "0" }

    func stop() { graph.stop() }
}

/// Appearances and volumes by node, written on the graph's loop thread and read by the scenario.
private final class Sightings: Sendable {
    private let values = Mutex<[GlobalID: [DemoObserver.VolumeSample]]>([:])
    private let appearances = Mutex<[GlobalID: ContinuousClock.Instant]>([:])

    func appeared(_ node: GlobalID, at time: ContinuousClock.Instant) {
        appearances.withLock { if $0[node] == nil { $0[node] = time } }
    }

    func appearance(of node: GlobalID) -> ContinuousClock.Instant? { appearances.withLock { $0[node] } }

    func forget(_ node: GlobalID) {
        appearances.withLock { $0[node] = nil }
        values.withLock { $0[node] = nil }
    }

    func record(_ volume: Float, of node: GlobalID, at time: ContinuousClock.Instant) {
        values.withLock { all in
            if all[node]?.last?.volume != volume { all[node, default: []].append(.init(time: time, volume: volume)) }
        }
    }

    func samples(of node: GlobalID) -> [DemoObserver.VolumeSample] { values.withLock { $0[node] ?? [] } }
}
