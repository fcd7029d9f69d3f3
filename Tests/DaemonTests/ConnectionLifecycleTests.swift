import Foundation
import PipeWireSandbox
import Testing

/// The daemon before PipeWire exists, across a PipeWire restart, and on SIGTERM.
@Suite("audiosessiond connection lifecycle", .serialized)
struct ConnectionLifecycleTests {
    @Test func withoutPipeWireItSaysSoOnceKeepsRetryingAndAttachesWhenItStarts() throws {
        let sandbox = try PrivatePipeWire()
        sandbox.stopDaemon()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitForLog("PipeWire is not running")
        #expect(daemon.log.contains(sandbox.runtimeDirectory.path), "names the runtime dir it looked in")
        try sandbox.startAgain()
        try daemon.waitUntilReady()
        #expect(daemon.log.components(separatedBy: "PipeWire is not running").count - 1 == 1, "one line, not one per retry")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try waitUntil(timeout: .seconds(5), "music is linked") { try !sandbox.linkedDevices(of: "music").isEmpty }
        #expect(try daemon.terminate() == 0)
    }

    @Test func pipeWireRestartIsMediaServicesLostAndReset() throws {
        let sandbox = try PrivatePipeWire()
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let daemon = try DaemonProcess(in: sandbox, environment: bus.environment)
        try daemon.waitUntilReady()
        let decisions = try BusDecisions(in: sandbox, bus: bus)
        defer { decisions.terminate() }
        try sandbox.restart()
        try daemon.waitUntilReady(count: 2)
        // What every session hears (AVAudioSession's media services lost, then reset), in order.
        try waitUntil(timeout: .seconds(5), "the monitor shows media services lost and reset (\(decisions.all.map(\.kind)))") {
            decisions.all.map(\.kind).filter { $0.hasPrefix("mediaServices") } == ["mediaServicesLost", "mediaServicesReset"]
        }
        // State is rebuilt: a new stream on the new PipeWire is linked, and defaults are provided again.
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = after-restart }"])
        try waitUntil(timeout: .seconds(5), "the new stream is linked") {
            try !sandbox.linkedDevices(of: "after-restart").isEmpty
        }
        #expect(try sandbox.defaultDevice("default.audio.sink") != nil)
        #expect(try daemon.terminate() == 0)
    }

    @Test func sigtermExitsZeroAndTakesItsLinksWithIt() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try waitUntil(timeout: .seconds(5), "music is linked") { try !sandbox.linkedDevices(of: "music").isEmpty }
        #expect(try daemon.terminate() == 0, "SIGTERM is a shutdown, not a death (143)")
        try waitUntil(timeout: .seconds(5), "the daemon's links are gone with it") {
            try sandbox.linkedDevices(of: "music").isEmpty
        }
    }

    /// SIGPIPE (a write to a socket whose other end went) kills no daemon: run from a shell, as
    /// here, nothing else ignores it. Still linking after it, and a SIGTERM ends it cleanly.
    @Test func sigpipeIsNoDeath() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        kill(daemon.process.pid, SIGPIPE)
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try waitUntil(timeout: .seconds(5), "music is linked (the daemon lives: \(daemon.process.isRunning))") {
            try !sandbox.linkedDevices(of: "music").isEmpty
        }
        #expect(try daemon.terminate() == 0)
    }
}
