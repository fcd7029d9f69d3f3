import Foundation
import PipeWireSandbox
import Testing

/// Browsers set no role: their output looks the same for music and for a call. A tab playing
/// music is a media player; a WebRTC call — the browser captures from the microphone while it
/// plays — is a call for as long as both run: it pauses an MPRIS music player (mpv) and plays it
/// again when it hangs up. Real firefox-esr and chromium, headless, on the daemon's private
/// PipeWire and bus.
@Suite("Real browsers: a WebRTC call pauses the music, a tab playing is media", .serialized)
struct RealBrowserPolicyTests {
    typealias Rig = MPRISInterruptionTests.Rig

    /// The session of the browser's running stream of this media class. Running: a browser
    /// opens and closes its call's streams several times as it starts, and one it left idle
    /// (not corked, not running) is stopped after its grace, in no session's active streams.
    static func session(of browser: RealBrowser, _ mediaClass: String, rig: Rig) throws -> SessionOracle.Session? {
        let oracle = SessionOracle(sandbox: rig.sandbox, busAddress: rig.bus.address)
        guard let node = browser.streams(in: try rig.sandbox.dump()).first(where: { $0.mediaClass == mediaClass && $0.state == "running" })
        else { return nil }
        return try oracle.session(ofStream: node.id)
    }

    /// Each of the browser's streams with its session, for a failure message.
    static func census(of browser: RealBrowser, rig: Rig) throws -> String {
        let sessions = try SessionOracle(sandbox: rig.sandbox, busAddress: rig.bus.address).sessions()
        return browser.streams(in: try rig.sandbox.dump()).map { node in
            let session = sessions.first { $0.streams.contains(node.id) }
            let corked = node.property("pulse.corked").map { " corked \($0)" } ?? ""
            return "\(node.id) \(node.mediaClass ?? "?") \(node.state ?? "?")\(corked) in \(session.map { "#\($0.id) \($0.summary)" } ?? "no session")"
        }.joined(separator: "; ")
    }

    @Test(arguments: RealBrowser.Kind.allCases)
    func aWebRTCCallPausesTheMusicPlayerAndHangingUpPlaysItAgain(_ kind: RealBrowser.Kind) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        _ = try await rig.startPlayingMusic()
        let browser = try RealBrowser(kind, .call(), in: rig.sandbox)
        defer { browser.stop() }

        try await eventually("\(kind) is in a call: one capture and one playback stream", timeout: .seconds(30)) {
            try browser.streamCounts() == .init(outputs: 1, inputs: 1)
        }
        try await rig.waitForStatus("Paused")
        var call: SessionOracle.Session?
        try await eventually("\(kind)'s session is a call; log:\n\(rig.log)") {
            call = try Self.session(of: browser, "Stream/Output/Audio", rig: rig)
            return call?.classifiedBy == "call"
        }
        #expect(call?.category == "playAndRecord" && call?.priorityClass == "communication", "\(call?.summary ?? "")")
        // Its own capture is in the same session (Chromium's is another client) and is not
        // silenced. Both are read together until they agree: a browser closes and opens its
        // call's streams several times as the call starts, and when all of them went for a
        // moment its app's session is made anew (another id) with the next pair.
        var capture: SessionOracle.Session?
        var seen = ""
        try await eventually("\(kind)'s capture is in its call's session (now \(seen)); log:\n\(rig.log)") {
            call = try Self.session(of: browser, "Stream/Output/Audio", rig: rig)
            capture = try Self.session(of: browser, "Stream/Input/Audio", rig: rig)
            seen = try Self.census(of: browser, rig: rig)
            return call?.classifiedBy == "call" && capture?.id == call?.id
        }
        #expect(call?.captureSilenced == false)
        try await eventually("\(kind)'s microphone and playback are linked") {
            try browser.linkedDevices(mediaClass: "Stream/Input/Audio") == ["mic"]
                && browser.linkedDevices(mediaClass: "Stream/Output/Audio") == ["headphones"]
        }

        let hungUp = ContinuousClock.now
        try browser.hangUp()
        try await rig.waitForStatus("Playing")
        print("\(kind): hang-up → mpv Playing again in \((ContinuousClock.now - hungUp).formatted(.units(allowed: [.milliseconds])))")
        let silenced = try RealAppPolicyTests.oracle(rig).sessions().filter(\.captureSilenced)
        #expect(silenced.isEmpty, "no microphone silenced: \(silenced.map(\.summary))")
    }

    @Test(arguments: RealBrowser.Kind.allCases)
    func aTabPlayingMusicIsAMediaPlayerThatMixes(_ kind: RealBrowser.Kind) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        _ = try await rig.startPlayingMusic()
        let browser = try RealBrowser(kind, .media, in: rig.sandbox)
        defer { browser.stop() }
        var session: SessionOracle.Session?
        try await eventually("\(kind)'s tab has an active session", timeout: .seconds(30)) {
            session = try Self.session(of: browser, "Stream/Output/Audio", rig: rig)
            return session?.activity == "active"
        }
        #expect(session?.category == "playback" && session?.priorityClass == "media" && session?.classifiedBy == "rules",
            "\(session?.summary ?? "")")
        #expect(try rig.status() == "Playing", "two media players mix on the desktop")
    }
}
