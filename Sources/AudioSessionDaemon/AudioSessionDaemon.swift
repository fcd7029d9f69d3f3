import Dispatch
import Logging
import PipeWireGraph

/// The daemon: attaches to PipeWire and wires the graph mechanism to the policy.
///
/// Reactions run on PipeWire's loop thread, inside the graph observer, so reacting to a new
/// stream costs no thread hop: it is bounded by PipeWire round-trips, not by our code.
public final class AudioSessionDaemon: Sendable {
    public let options: DaemonOptions
    private let logger: Logger
    private let graph: PipeWireGraph
    private let linker: StreamLinker?

    public init(options: DaemonOptions, logger: Logger) {
        self.options = options
        self.logger = logger
        self.graph = PipeWireGraph(
            configuration: .init(remote: options.remote, applicationName: "audiosessiond"), logger: logger)
        self.linker = options.linksStreams ? StreamLinker(graph: graph, logger: logger) : nil
    }

    /// Connects and reacts to the graph until `stop()`; returns at once.
    public func start() {
        let linker = self.linker
        let logger = self.logger
        let linksStreams = options.linksStreams
        graph.setObserver { event, snapshot in
            switch event {
            case .initialSyncComplete:
                logger.info("attached to PipeWire: \(snapshot.nodes.count) nodes, \(snapshot.devices.count) devices; \(linksStreams ? "linking streams" : "not linking (--no-linking)")")
            case .disconnected(let reason):
                logger.warning("PipeWire went away (\(reason)); media services lost, reconnecting")
            case .added(.node(let node)) where node.mediaClass?.hasPrefix("Stream/") == true:
                logger.debug("stream \(node.id) appeared: '\(node.name)' \(node.mediaClass ?? "") role=\(node.properties["media.role"] ?? "none")")
            default:
                break
            }
            linker?.handle(event, in: snapshot)
        }
        graph.start()
    }

    /// Detaches from PipeWire. Everything the daemon created on its connection (links, the
    /// metadata it provides) goes with it.
    public func stop() {
        graph.stop()
    }

    /// Runs until SIGINT or SIGTERM, then stops cleanly.
    public func runUntilTerminated() {
        start()
        let signal = TerminationSignal.wait()
        logger.info("received \(signal), shutting down")
        stop()
    }
}
