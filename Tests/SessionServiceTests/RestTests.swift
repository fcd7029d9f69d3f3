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
        let pid = sandbox.daemon.pid
        let atReady = try ResidentCode.kibibytes(of: pid)
        // Start-up's events (the graph's hardware values at 1.5 s) bring code back and releases
        // of their own: settled once the resident code is low and has not moved for 1.5 s. Low:
        // half of what was resident when the sandbox was ready, or, if a release came before
        // that was read, a few MiB (the whole debug build's code is some 10 MiB, a release
        // leaves under 1).
        let low = max(atReady / 2, 4096)
        var released = atReady
        var since = ContinuousClock.now
        try waitUntil(timeout: .seconds(10), "the daemon's start-up releases settle (resident \(atReady) KiB when ready, now \(released))") {
            let now = try ResidentCode.kibibytes(of: pid)
            if now != released { (released, since) = (now, .now) }
            return released < low && ContinuousClock.now - since > .milliseconds(1500)
        }

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
