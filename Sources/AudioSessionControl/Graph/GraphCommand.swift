import ArgumentParser
import Foundation
import PipeWireGraph

/// `audiosessionctl graph [--json]`: what the daemon sees, read straight from PipeWire.
struct GraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Print PipeWire's devices, sinks, sources, streams and links, as the daemon sees them.",
        discussion: """
            Connects to PipeWire directly (PIPEWIRE_REMOTE, else pipewire-0 in XDG_RUNTIME_DIR); \
            the daemon need not be running.
            """)

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Option(help: "PipeWire remote to connect to (a socket name or absolute path).")
    var remote: String?

    @Option(help: "Seconds to wait for PipeWire to answer.")
    var timeout: Double = 5

    func run() async throws {
        let graph = PipeWireGraph(configuration: .init(remote: remote, applicationName: "audiosessionctl"))
        let events = graph.events()
        graph.start()
        defer { graph.stop() }
        let outcome = await Self.waitForInitialSync(graph, events: events, timeout: .milliseconds(Int(timeout * 1000)))
        switch outcome {
        case .synced(let snapshot):
            let report = GraphReport(snapshot, remote: PipeWireGraph.describeRemote(remote))
            print(json ? try report.json() : report.text(), terminator: "")
        case .unreachable(let problem):
            FileHandle.standardError.write(Data("audiosessionctl: \(problem)\n".utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
    }

    enum Outcome: Sendable { case synced(GraphSnapshot), unreachable(String) }

    /// Done at the first complete sync, or at the first failed connection attempt (a one-shot
    /// tool reports it and exits rather than retrying), or at the deadline.
    static func waitForInitialSync(
        _ graph: PipeWireGraph, events: AsyncStream<GraphEvent>, timeout: Duration
    ) async -> Outcome {
        await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                for await event in events where event == .initialSyncComplete { return .synced(graph.snapshot) }
                return nil
            }
            group.addTask {
                let clock = ContinuousClock()
                let deadline = clock.now + timeout
                while clock.now < deadline && !Task.isCancelled {
                    if let problem = graph.connectionProblem { return .unreachable(problem) }
                    try? await Task.sleep(for: .milliseconds(10))
                }
                if Task.isCancelled { return nil }
                return .unreachable(
                    graph.connectionProblem ?? "PipeWire did not answer within \(timeout) (\(PipeWireGraph.describeRemote(nil)))")
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            graph.stop()  // ends the event stream so the other task finishes
            return first ?? .unreachable("PipeWire connection ended")
        }
    }
}
