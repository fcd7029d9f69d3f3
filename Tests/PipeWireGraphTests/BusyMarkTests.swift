import Foundation
import PipeWireSandbox
import Synchronization
import Testing

@testable import PipeWireGraph

/// PipeWire's busy-mark bug (docs/upstream-bugs.md): a client that binds an exported metadata
/// the exporter withdraws before it answers is never read again, though it still receives events.
/// A connection caught so binds each new stream and is never answered; the round trip that
/// follows its binds goes unanswered too, so the connection is taken for lost and made again.
@Suite(.serialized)
struct BusyMarkTests {
    @Test func aStreamStartedAfterTheServerStoppedReadingIsSeenOnceConnectedAgain() throws {
        let sandbox = try PrivatePipeWire()
        let logs = LogRecorder()
        let graph = GraphHarness.makeGraph(remote: sandbox.socketPath, logs: logs, unansweredRoundTripLimit: .milliseconds(500))
        defer { graph.stop() }
        let events = EventRecorder()
        let withdrawals = Mutex(0)
        graph.setObserver { event, snapshot in
            events.record(event, snapshot)
            // The bug's recipe: withdrawn in the very loop turn that binds it, without the wait.
            guard case .added(.metadata(let metadata)) = event, metadata.name == "bait" else { return }
            graph.withdrawMetadataAtOnce(named: "bait")
            withdrawals.withLock { $0 += 1 }
        }
        graph.start()
        try waitUntil(timeout: .seconds(10), "the initial sync completes") { events.contains(.initialSyncComplete) }
        let caught = { events.all.contains { if case .disconnected(let reason) = $0 { reason.contains("no round trip") } else { false } } }
        // The recipe catches the connection every time on 0.3.65 and 1.4.2; 1.6.9 is not caught.
        for round in 1...20 where !caught() {
            graph.provideMetadata(named: "bait")
            try waitUntil(timeout: .seconds(5), "bait \(round) withdrawn") { withdrawals.withLock { $0 } == round }
        }
        let stack = graph.snapshot.serverVersion.map { "\($0)" } ?? "?"
        let player = try sandbox.play(role: "Music", file: try sandbox.testTone(seconds: 30))
        defer { player.terminate() }
        try waitUntil(timeout: .seconds(5), "the stream started after is seen (on \(stack); the connection \(caught() ? "was" : "was not") taken for lost)") {
            let snapshot = graph.snapshot
            return snapshot.streams.contains { snapshot.client(of: $0)?.pid == player.pid }
        }
        if let version = graph.snapshot.serverVersion, version < PipeWireVersion(1, 6, 0) {
            #expect(caught(), "on \(version) the recipe catches the connection, and the daemon must have noticed")
        }
    }
}
