import Logging
import PipeWireGraph

/// The daemon on PipeWire: the graph mechanism, its loop, and the PipeWire backend.
final class PipeWireAttachment: ServerAttachment, Sendable {
    let server = AudioServerKind.pipewire
    private let graph: PipeWireGraph
    private let pipeWireBackend: PipeWireBackend
    let loop: DaemonLoop
    private let logger: Logger

    init(options: DaemonOptions, logger: Logger) {
        graph = PipeWireGraph(configuration: .init(remote: options.remote, applicationName: "audiosessiond"), logger: logger)
        let loop = PipeWireLoop(graph: graph)
        self.loop = loop
        pipeWireBackend = PipeWireBackend(
            graph: graph, loop: loop, linksStreams: options.linking != .never, stateDirectory: options.stateDirectory, logger: logger)
        self.logger = logger
    }

    var backend: AudioBackend { pipeWireBackend }

    func start(onEvent: @escaping @Sendable (BackendEvent) -> Void) {
        let backend = pipeWireBackend
        let logger = self.logger
        backend.onEvent.wire(onEvent)  // before the loop thread runs: it reads it for every event
        graph.setObserver { event, snapshot in
            switch event {
            case .initialSyncComplete:
                logger.info("attached to PipeWire: \(snapshot.nodes.count) nodes, \(snapshot.devices.count) devices")
            case .disconnected(let reason):
                logger.warning("PipeWire went away (\(reason)); media services lost, reconnecting")
            case .added(.node(let node)) where node.mediaClass?.hasPrefix("Stream/") == true:
                logger.debug("stream \(node.id) appeared: '\(node.name)' \(node.mediaClass ?? "") role=\(node.properties["media.role"] ?? "none")")
            default:
                break
            }
            backend.handle(event, in: snapshot)
        }
        graph.start()
    }

    /// Our links and nodes die with our connection: nothing is left to undo here.
    func undoBackendState(then done: @escaping @Sendable () -> Void) { done() }

    func flush(_ done: @escaping @Sendable () -> Void) {
        let graph = self.graph
        Task.detached {
            await graph.roundTrip()
            done()
        }
    }

    func stop() { graph.stop() }
}
