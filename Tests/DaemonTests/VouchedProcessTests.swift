import Foundation
import PipeWireGraph
import PipeWireSandbox
import Testing

@testable import AudioSessionDaemon

/// A client's process is its socket's peer, never the pid it states — except behind
/// pipewire-pulse, whose connections all have it as their peer.
@Suite struct VouchedProcessTests {
    @Test func aNativeClientIsItsPeerWhateverPidItStates() {
        var vouched = VouchedProcess()
        let liar = Client(id: 40, properties: ["pipewire.sec.pid": "\(getpid())", "application.process.id": "1"])
        #expect(vouched.pid(of: liar) == getpid())
        let silent = Client(id: 41, properties: ["pipewire.sec.pid": "\(getpid())"])
        #expect(vouched.pid(of: silent) == getpid())
    }

    @Test func behindPipeWirePulseThePulseClientsStatedPidCounts() throws {
        // A process whose command line says pipewire-pulse, as the real one's does.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vouched-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bridge = try ManagedProcess(
            "/bin/bash", ["-c", "exec -a pipewire-pulse sleep 30"], environment: ProcessInfo.processInfo.environment,
            logDirectory: directory)
        defer { bridge.terminate() }
        try waitUntil(timeout: .seconds(5), "the stand-in's command line is pipewire-pulse") {
            (try? String(contentsOfFile: "/proc/\(bridge.pid)/cmdline", encoding: .utf8))?.hasPrefix("pipewire-pulse") == true
        }
        var vouched = VouchedProcess()
        let paplay = Client(id: 42, properties: ["pipewire.sec.pid": "\(bridge.pid)", "application.process.id": "4242"])
        #expect(vouched.pid(of: paplay) == 4242)
    }
}
