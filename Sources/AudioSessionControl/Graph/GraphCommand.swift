import ArgumentParser
import Foundation
import Logging
import PipeWireGraph
import PulseAudioServer

/// `audiosessionctl graph [--json]`: what the daemon sees, read straight from the audio server
/// (PipeWire, else a pure PulseAudio).
struct GraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Print the audio server's devices, sinks, sources and streams (PipeWire: and links), as the daemon sees them.",
        discussion: """
            Connects to PipeWire directly (PIPEWIRE_REMOTE, else pipewire-0 in XDG_RUNTIME_DIR); where PipeWire does \
            not answer, to PulseAudio (PULSE_SERVER, else pulse/native in XDG_RUNTIME_DIR). The daemon need not be running.
            """)

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Option(help: "PipeWire remote to connect to (a socket name or absolute path).")
    var remote: String?

    @Option(help: "Seconds to wait for the server to answer.")
    var timeout: Double = 5

    @Option(name: .customLong("pulse-server"), help: "PulseAudio server to read where PipeWire does not answer (unix:/path).")
    var pulseServer: String?

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
            // No PipeWire: a pure PulseAudio server, if one answers.
            if let snapshot = await Self.pulseSnapshot(server: pulseServer, timeout: .milliseconds(Int(timeout * 1000))) {
                let report = PulseGraphReport(snapshot)
                print(json ? try report.json() : report.text(), terminator: "")
                return
            }
            FileHandle.standardError.write(Data("audiosessionctl: \(problem); no PulseAudio answered either\n".utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
    }

    /// PulseAudio's state once read, or nil when no server answers in time.
    static func pulseSnapshot(server: String?, timeout: Duration) async -> PulseSnapshot? {
        guard PulseLibrary.load() == nil else { return nil }  // no libpulse: no PulseAudio to ask
        var logger = Logger(label: "audiosessionctl")
        logger.logLevel = .critical
        let connection = PulseConnection(configuration: .init(server: server, applicationName: "audiosessionctl"), logger: logger)
        let synced = PulseSynced()
        connection.setObserver { event, snapshot in
            if case .synced = event { synced.set(snapshot) }
        }
        connection.start()
        defer { connection.stop() }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if let snapshot = synced.value { return snapshot }
            if connection.connectionProblem != nil { return nil }  // refused: no server there
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
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

/// The first full read of a PulseAudio server, handed from its loop thread.
// Unchecked: its one value is read and written only with `lock` held.
private final class PulseSynced: @unchecked Sendable {
    private let lock = NSLock()
    private var snapshot: PulseSnapshot?

    func set(_ snapshot: PulseSnapshot) { lock.withLock { self.snapshot = snapshot } }
    var value: PulseSnapshot? { lock.withLock { snapshot } }
}
