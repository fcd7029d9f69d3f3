import Foundation
import PipeWireSandbox
import Testing

/// The browser rig works: each real browser, headless on a private PipeWire (WirePlumber as
/// its session manager, no audiosessiond), opens the streams its scenario should.
@Suite("Real browsers open their streams on a private PipeWire", .serialized)
struct RealBrowserRigTests {
    @Test(arguments: RealBrowser.Kind.allCases)
    func aTabPlayingMusicOpensOnePlaybackStream(_ kind: RealBrowser.Kind) throws {
        let sandbox = try PrivatePipeWire()
        try sandbox.startWirePlumber()
        let browser = try RealBrowser(kind, .media, in: sandbox)
        defer { browser.stop() }
        try browser.waitForStreams { $0 == .init(outputs: 1, inputs: 0) }
    }

    @Test(arguments: RealBrowser.Kind.allCases)
    func aCallCapturesAndPlaysUntilItHangsUp(_ kind: RealBrowser.Kind) throws {
        let sandbox = try PrivatePipeWire()
        try sandbox.startWirePlumber()
        // The user's microphone: WirePlumber 0.5 would rather take a sink's monitor than the
        // sandbox's virtual source.
        try sandbox.chooseDefaultSource("mic")
        let browser = try RealBrowser(kind, .call(), in: sandbox)
        defer { browser.stop() }
        try browser.waitForStreams { $0 == .init(outputs: 1, inputs: 1) }
        // A real capture: the sandbox's microphone feeds it, not a fake device in the browser.
        try waitUntil(timeout: .seconds(10), "\(kind)'s capture stream is linked to the mic") {
            try browser.linkedDevices(mediaClass: "Stream/Input/Audio") == ["mic"]
        }
        try browser.hangUp()
        try browser.waitForStreams { $0.inputs == 0 }
    }
}
