import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// What the session bus runs while the audio server sends nothing is unmapped again too.
@Suite("audiosessiond at rest, on the session bus", .serialized)
struct RestTests {
    /// A client's calls bring code back with no audio server event; they count as activity, and
    /// a second after them the code is unmapped again.
    @Test func codeABusClientRanIsUnmappedWithoutAServerEvent() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        try sandbox.waitForLog("code unmapped at rest")
        // Start-up's events (the graph's hardware values at 1.5 s) bring releases of their own:
        // settled once 1.5 s pass with none (the daemon logs each one at debug level).
        var releases = 0
        var since = ContinuousClock.now
        try waitUntil(timeout: .seconds(10), "the daemon's start-up releases settle") {
            let count = sandbox.log.components(separatedBy: "code unmapped").count
            if count != releases { (releases, since) = (count, .now) }
            return ContinuousClock.now - since > .milliseconds(1500)
        }
        let pid = sandbox.daemon.pid
        let released = try ResidentCode.kibibytes(of: pid)

        let client = try sandbox.connect()
        let session = try await SessionClient.create(on: client, app: "rest")
        try await session.setCategory("playback", mode: "moviePlayback")
        #expect(try await session.property("Category") == .string("playback"))
        _ = try await listSessions(client)
        let grown = try ResidentCode.kibibytes(of: pid)
        #expect(grown > released, "the calls' code came back: \(released) → \(grown) KiB")

        try ResidentCode.waitUntilReleased(from: grown, of: pid, timeout: .seconds(5), "the calls' code")
    }
}
