import Foundation
import PipeWireSandbox
import Testing

/// The browsers on a pure PulseAudio 16 server (their own libpulse client, no PipeWire
/// anywhere): a WebRTC call — the browser captures from the microphone while it plays — is a
/// call that pauses the MPRIS music player (mpv) and plays it again at hang-up; a tab playing
/// music is a media player that mixes. Real firefox-esr and chromium, headless, on the rig's
/// server and bus; the server's side read from its sink inputs and source outputs
/// (``PulseWatcher``), the daemon's from `status --json`. The same on PipeWire:
/// ``RealBrowserPolicyTests``.
@Suite("Real browsers on PulseAudio: a WebRTC call pauses the music, a tab playing is media", .serialized)
struct PulseAudioBrowserTests {
    typealias Rig = PulseAudioSessionTests.Rig
    typealias Apps = PulseAudioRealAppTests

    /// The browser's sink inputs and source outputs that run (not corked), every process of it.
    static func running(_ browser: RealBrowser, _ rig: Rig) -> (plays: [Apps.Seen], captures: [Apps.Seen]) {
        let family = browser.family
        return (
            family.flatMap { Apps.pid($0, plays: rig) }.filter { !$0.corked },
            family.flatMap { Apps.pid($0, captures: rig) }.filter { !$0.corked }
        )
    }

    @Test(arguments: RealBrowser.Kind.allCases)
    func aWebRTCCallPausesTheMusicPlayerAndHangingUpPlaysItAgain(_ kind: RealBrowser.Kind) async throws {
        let rig = try Rig()
        defer { rig.stop() }
        _ = try await Apps.startMusic(rig)
        let browser = try RealBrowser(kind, .call(), in: rig.pulse)
        defer { browser.stop() }

        try await eventually(
            "\(kind) is in a call: it plays and captures (now \(Self.running(browser, rig))); page: \(browser.pageLog)",
            timeout: .seconds(30)
        ) {
            let now = Self.running(browser, rig)
            return !now.plays.isEmpty && !now.captures.isEmpty
        }
        try await Apps.waitForMusic(rig, "Paused")
        // Its app's session (the topmost process of its own executable: Chromium's audio service
        // is a child) is a call by what its streams do, and is heard: not held, not silenced.
        var call: SessionOracle.Session?
        try await eventually("\(kind)'s session is a call (now \(call?.summary ?? "none")); daemon:\n\(rig.daemon.log)") {
            call = try Apps.session(rig, ofProcess: browser.process.pid)
            return call?.classifiedBy == "call"
        }
        #expect(call?.category == "playAndRecord" && call?.priorityClass == "communication", "\(call?.summary ?? "")")
        #expect(call?.captureSilenced == false)
        try await eventually("\(kind)'s streams are on the real devices (now \(Self.running(browser, rig)))") {
            let now = Self.running(browser, rig)
            return !now.plays.isEmpty && !now.captures.isEmpty
                && now.plays.allSatisfy { $0.sink != nil && $0.sink != Apps.holdSink && !$0.muted }
                && now.captures.allSatisfy { $0.source != nil && $0.source != Apps.holdSource && !$0.muted }
        }
        print("\(kind) on PulseAudio: \(call?.summary ?? "?"); \(Self.running(browser, rig))")

        let hungUp = ContinuousClock.now
        try browser.hangUp()
        try await Apps.waitForMusic(rig, "Playing")
        print("\(kind) on PulseAudio: hang-up → mpv Playing again in \((ContinuousClock.now - hungUp).formatted(.units(allowed: [.milliseconds])))")
        browser.stop()
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
    }

    @Test(arguments: RealBrowser.Kind.allCases)
    func aTabPlayingMusicIsAMediaPlayerThatMixes(_ kind: RealBrowser.Kind) async throws {
        let rig = try Rig()
        defer { rig.stop() }
        _ = try await Apps.startMusic(rig)
        let browser = try RealBrowser(kind, .media, in: rig.pulse)
        defer { browser.stop() }
        var session: SessionOracle.Session?
        try await eventually("\(kind)'s tab has an active session (now \(session?.summary ?? "none")); page: \(browser.pageLog)", timeout: .seconds(30)) {
            session = try Apps.session(rig, ofProcess: browser.process.pid)
            return session?.activity == "active" && !Self.running(browser, rig).plays.isEmpty
        }
        #expect(
            session?.category == "playback" && session?.priorityClass == "media" && session?.classifiedBy == "rules",
            "\(session?.summary ?? "")")
        // Two media players mix: for a second, mpv plays on and the tab is not held.
        let since = ContinuousClock.now
        while ContinuousClock.now - since < .seconds(1) {
            try await Task.sleep(for: .milliseconds(100))
            #expect(Self.running(browser, rig).plays.allSatisfy { $0.sink != Apps.holdSink }, "the tab is not held")
        }
        try await Apps.waitForMusic(rig, "Playing")
    }
}
