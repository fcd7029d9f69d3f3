import Foundation
import Logging
import PipeWireGraph
import PipeWireSandbox
import Synchronization
import Testing

/// A private PipeWire plus a PipeWireGraph connected to it, with every event recorded.
final class GraphHarness: @unchecked Sendable {
    let sandbox: PrivatePipeWire
    let graph: PipeWireGraph
    let events = EventRecorder()
    let logs = LogRecorder()

    init(devices: [VirtualDevice] = VirtualDevice.standard, start: Bool = true) throws {
        sandbox = try PrivatePipeWire(devices: devices)
        graph = Self.makeGraph(remote: sandbox.socketPath, logs: logs)
        let events = self.events
        graph.setObserver { event, snapshot in events.record(event, snapshot) }
        if start {
            graph.start()
            try waitUntil(timeout: .seconds(10), "the initial sync completes") {
                events.contains(.initialSyncComplete)
            }
        }
    }

    static func makeGraph(
        remote: String, logs: LogRecorder, unansweredRoundTripLimit: Duration = .seconds(10)
    ) -> PipeWireGraph {
        var logger = Logger(label: "test.pipewire-graph") { _ in LogRecorderHandler(recorder: logs) }
        logger.logLevel = .trace
        return PipeWireGraph(
            configuration: .init(
                remote: remote, applicationName: "audiosession-tests",
                reconnectBackoff: .init(initial: .milliseconds(20), maximum: .milliseconds(200)),
                unansweredRoundTripLimit: unansweredRoundTripLimit),
            logger: logger)
    }

    deinit {
        graph.stop()
        sandbox.stop()
    }

    /// Waits until `condition` holds for the graph's published snapshot.
    func waitForSnapshot(
        timeout: Duration = .seconds(10), _ description: String, _ condition: (GraphSnapshot) -> Bool
    ) throws -> GraphSnapshot {
        var last = GraphSnapshot()
        try waitUntil(timeout: timeout, description) {
            last = graph.snapshot
            return condition(last)
        }
        return last
    }

    /// A `Music` stream given DSP ports and linked to `sink` by this graph, as a session manager
    /// does; returns once both channels are linked.
    func playLinkedStream(to sink: String = "speaker") throws -> (player: ManagedProcess, stream: Node, sink: Node) {
        let (player, stream) = try playStream(role: "Music")
        let device = try #require(graph.snapshot.node(named: sink))
        graph.configurePorts(node: stream.id)
        _ = try waitForSnapshot("stream ports") { $0.ports(of: stream.id, direction: .output).count == 2 }
        graph.link(output: stream.id, input: device.id)
        _ = try waitForSnapshot("linked") { $0.links(from: stream.id, to: device.id).count == 2 }
        return (player, stream, device)
    }

    /// Starts `pw-cat` playing a tone with `role` and waits for its node in the mirror.
    func playStream(role: String?, channels: Int = 2) throws -> (ManagedProcess, Node) {
        let tone = try sandbox.testTone(seconds: 60, channels: channels)
        let player = try sandbox.play(role: role, file: tone)
        let pid = player.pid
        let snapshot = try waitForSnapshot("the pw-cat stream of pid \(pid) appears") { snapshot in
            snapshot.streams.contains { snapshot.client(of: $0)?.pid == pid }
        }
        let node = snapshot.streams.first { snapshot.client(of: $0)?.pid == pid }!
        return (player, node)
    }

    /// A playing stream whose `Props` the mirror shows. PipeWire 1.4.2 gives a client's
    /// stream Props only once it is configured: there it is configured and linked to the
    /// speaker, as a session manager would.
    func streamWithProps(role: String = "Music") throws -> Node {
        let (_, stream) = try playStream(role: role)
        if sandbox.installation != nil {
            graph.configurePorts(node: stream.id)
            let speaker = try waitForSnapshot("stream ports") { $0.ports(of: stream.id, direction: .output).count == 2 }
                .node(named: "speaker")
            guard let speaker else { throw SandboxError.commandFailed("no speaker in the sandbox") }
            graph.link(output: stream.id, input: speaker.id)
            // Linked, its format is negotiated and pw_stream applies its own controls again,
            // which would undo a volume written before: wait until it runs.
            _ = try waitForSnapshot("the stream runs") { $0.nodes[stream.id]?.state == .running }
        }
        let snapshot = try waitForSnapshot("stream Props") { $0.nodes[stream.id]?.props?.volume != nil }
        guard let node = snapshot.nodes[stream.id] else { throw SandboxError.commandFailed("the stream went away") }
        return node
    }

    /// A node whose `Props` the server applies and reports: the speaker on Debian's 0.3.65;
    /// on PipeWire 1.4.2, whose null sinks report none, a stream (``streamWithProps(role:)``).
    func nodeWithProps() throws -> Node {
        guard sandbox.installation == nil else { return try streamWithProps() }
        let snapshot = try waitForSnapshot("speaker Props") { $0.node(named: "speaker")?.props != nil }
        guard let speaker = snapshot.node(named: "speaker") else { throw SandboxError.commandFailed("no speaker") }
        return speaker
    }
}

/// Every event the observer saw, with the snapshot it came with.
final class EventRecorder: Sendable {
    private let storage = Mutex<[(GraphEvent, GraphSnapshot)]>([])

    func record(_ event: GraphEvent, _ snapshot: GraphSnapshot) { storage.withLock { $0.append((event, snapshot)) } }
    var all: [GraphEvent] { storage.withLock { $0.map(\.0) } }
    var withSnapshots: [(GraphEvent, GraphSnapshot)] { storage.withLock { $0 } }
    func contains(_ event: GraphEvent) -> Bool { storage.withLock { $0.contains { $0.0 == event } } }
    func count(where predicate: (GraphEvent) -> Bool) -> Int { storage.withLock { $0.filter { predicate($0.0) }.count } }
    func clear() { storage.withLock { $0.removeAll() } }
}

/// Log lines, for asserting what an operator would read.
final class LogRecorder: Sendable {
    private let storage = Mutex<[(Logger.Level, String)]>([])
    func append(_ level: Logger.Level, _ message: String) { storage.withLock { $0.append((level, message)) } }
    var lines: [(Logger.Level, String)] { storage.withLock { $0 } }
}

struct LogRecorderHandler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        recorder.append(event.level, "\(event.message)")
    }
}

/// True when no process with this PID exists any more (reaped).
func processIsGone(_ pid: Int32) -> Bool {
    kill(pid, 0) != 0 && errno == ESRCH
}
