import Foundation
import PipeWireSandbox
import Synchronization
import Testing

@testable import AudioSessionDaemon

/// What the daemon tells its service manager, and when: `READY=1` only once every part is done,
/// again after each re-attach, never twice for one attach.
@Suite("Readiness: READY=1 once attached and serving")
struct ReadinessTests {
    final class Sent: Sendable {
        let messages = Mutex<[String]>([])
        var all: [String] { messages.withLock { $0 } }
    }

    func readiness(_ parts: Set<Readiness.Part>) -> (Readiness, Sent) {
        let sent = Sent()
        return (Readiness(waitingFor: parts, server: "PipeWire") { message in sent.messages.withLock { $0.append(message) } }, sent)
    }

    @Test func readyOnlyOnceEveryPartIsDone() {
        let (readiness, sent) = readiness([.attached, .sessionAPI, .mediaPlayers])
        readiness.done(.attached)
        readiness.done(.sessionAPI)
        #expect(sent.all.isEmpty, "the players are not listed yet")
        readiness.done(.mediaPlayers)
        #expect(sent.all == ["READY=1\nSTATUS=attached to PipeWire"])
        readiness.done(.mediaPlayers)
        readiness.saw(.attached(streams: [], ports: [], defaultOutput: nil, defaultInput: nil))
        #expect(sent.all.count == 1, "one READY=1 for one attach")
    }

    @Test func aServerThatComesBackMakesItReadyAgain() {
        let (readiness, sent) = readiness([.attached])
        readiness.saw(.attached(streams: [], ports: [], defaultOutput: nil, defaultInput: nil))
        readiness.saw(.lost)
        readiness.saw(.lost)
        #expect(sent.all == ["READY=1\nSTATUS=attached to PipeWire", "STATUS=waiting for PipeWire"])
        readiness.saw(.attached(streams: [], ports: [], defaultOutput: nil, defaultInput: nil))
        #expect(sent.all.last == "READY=1\nSTATUS=attached to PipeWire")
        #expect(sent.all.count == 3)
    }

    @Test func theDatagramReachesTheSocketNamedByNotifySocket() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readiness-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = try ReadinessSocket(in: directory)
        ServiceNotification.send("READY=1\nSTATUS=attached to PipeWire", socketPath: socket.path)
        ServiceNotification.send("STOPPING=1", socketPath: nil)  // run by hand: nothing, no crash
        try waitUntil(timeout: .seconds(2), "the message arrives (now \(socket.messages))") { socket.readyCount == 1 }
        #expect(socket.messages == ["READY=1", "STATUS=attached to PipeWire"])
    }

    /// A daemon that dies before it is ready fails the wait at once, saying how it ended.
    @Test func aDaemonThatDiesBeforeItIsReadyFailsTheWaitAtOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readiness-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = try ReadinessSocket(in: directory)
        let dead = try ManagedProcess("/bin/false", [], environment: socket.environment, logDirectory: directory)
        #expect {
            try socket.waitUntilReady(of: dead, timeout: .seconds(30))
        } throws: { error in
            // Its death, not the timeout.
            guard case SandboxError.notRunning(let message) = error else { return false }
            return message.contains("false exited (status 1")
        }
    }
}
