import Foundation
import PipeWireSandbox
import Testing

/// Route changes on a real PipeWire under the real daemon: a card whose headphone jack flips
/// (the sandbox's route device), null sinks plugged and unplugged, the user's default choice.
/// Each change is checked in the daemon's log, with its reason and previous route, and the
/// links with `pw-link` (an independent oracle).
@Suite("Routes: reasons, previous routes, pause on unplug", .serialized)
struct RouteChangeTests {
    static let headphonesRoute = "in[] out[Headphones:card-output:analog-output-headphones]"
    static let speakerRoute = "in[] out[Speaker:card-output:analog-output-speaker]"

    @Test func unpluggingTheHeadphonesPausesTheMusicAndPluggingThemInDoesNotResumeIt() throws {
        let sandbox = try PrivatePipeWire(devices: [VirtualDevice(name: "mic", kind: .source, positions: ["MONO"])])
        defer { sandbox.stop() }
        let card = try sandbox.startRouteDevice(name: "card", description: "Built-in Audio")
        try card.plugHeadphones()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try daemon.waitForLog("routed to \(Self.headphonesRoute)")
        try sandbox.waitUntilLinked("music", to: [card.sinkName])

        let probe = try RouteLatencyProbe(sandbox, watching: "music")
        let unplugged = ContinuousClock.now
        try card.unplugHeadphones()
        try sandbox.waitUntilLinked("music", to: [])
        print("route latency: jack unplug → music unlinked (pw-link) in \(milliseconds(since: unplugged)) ms")
        try waitUntil(timeout: .seconds(5), "the probe saw the unlink") { probe.unlinkedAt != nil }
        let flip = try #require(card.lastFlip(available: false))
        print("route latency (observer): jack flipped in the card → music's last link gone in \(String(format: "%.2f", (probe.unlinkedAt! - flip) * 1000)) ms")
        try daemon.waitForLog("paused: its output went away")
        let unplug = try #require(LoggedRouteChange.all(in: daemon.log).last)
        #expect(unplug == LoggedRouteChange(reason: "oldDeviceUnavailable", previous: Self.headphonesRoute, now: Self.speakerRoute))

        // Back in: the route moves to the headphones again, but the music stays paused (Apple:
        // newDeviceAvailable never starts playback by itself).
        try card.plugHeadphones()
        try daemon.waitForLog("route change: newDeviceAvailable")
        let plug = try #require(LoggedRouteChange.all(in: daemon.log).last)
        #expect(plug == LoggedRouteChange(reason: "newDeviceAvailable", previous: Self.speakerRoute, now: Self.headphonesRoute))
        _ = try sandbox.run("pw-cli", ["info", "0"])  // a round-trip: any relink would be visible by now
        #expect(try sandbox.linkedDevices(of: "music").isEmpty)
        #expect(try daemon.terminate() == 0)
    }

    @Test func unpluggingTheSinkTheMusicPlaysOnPausesItAndTheUsersChoiceDoesNot() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        try sandbox.chooseDefaultSink("headphones")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["headphones"])

        // The user picks the speaker: an override; the music moves and keeps playing.
        try sandbox.chooseDefaultSink("speaker")
        try sandbox.waitUntilLinked("music", to: ["speaker"])
        try daemon.waitForLog("route change: override")
        #expect(LoggedRouteChange.all(in: daemon.log).last
            == LoggedRouteChange(reason: "override", previous: "in[] out[Virtual:headphones]", now: "in[] out[Virtual:speaker]"))
        #expect(!daemon.log.contains("paused: its output went away"))

        // The speaker goes away under the music: it pauses rather than moving to the headphones.
        let unplugged = ContinuousClock.now
        try sandbox.destroyNode(named: "speaker")
        try sandbox.waitUntilLinked("music", to: [])
        print("route latency: sink removed (pw-cli destroy returned) → music unlinked in \(milliseconds(since: unplugged)) ms")
        try daemon.waitForLog("paused: its output went away")
        #expect(LoggedRouteChange.all(in: daemon.log).last
            == LoggedRouteChange(reason: "oldDeviceUnavailable", previous: "in[] out[Virtual:speaker]", now: "in[] out[Virtual:headphones]"))
        #expect(try daemon.terminate() == 0)
    }

    /// A rules edit that re-classifies a playing app re-routes it: categoryChange, with the
    /// output-only route as the previous one; a recorder whose only microphone goes away has no
    /// route for its category: noSuitableRouteForCategory.
    @Test func categoryChangeAndNoSuitableRoute() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let rules = sandbox.directory.appendingPathComponent("rules.d")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try """
            audiosession.rules = [
                { matches = [ { node.name = "recorder" } ]  actions = { classify = { category = record } } }
            ]
            """.write(to: rules.appendingPathComponent("50-recorder.conf"), atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--rules", rules.path])
        try daemon.waitUntilReady()
        try sandbox.chooseDefaultSink("headphones")
        let tone = try sandbox.testTone()
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music application.name = studio }"])
        try sandbox.waitUntilLinked("music", to: ["headphones"])

        try """
            audiosession.rules = [
                { matches = [ { node.name = "recorder" } ]  actions = { classify = { category = record } } }
                { matches = [ { application.name = "studio" } ]
                  actions = { classify = { category = playAndRecord  options = [ defaultToSpeaker ] } } }
            ]
            """.write(to: rules.appendingPathComponent("50-recorder.conf"), atomically: true, encoding: .utf8)
        try daemon.waitForLog("route change: categoryChange")
        #expect(LoggedRouteChange.all(in: daemon.log).last
            == LoggedRouteChange(reason: "categoryChange", previous: "in[] out[Virtual:headphones]", now: "in[Virtual:mic] out[Virtual:headphones]"))
        try sandbox.waitUntilLinked("music", to: ["headphones"])

        let recording = sandbox.directory.appendingPathComponent("capture.wav")
        try sandbox.spawn("pw-cat", ["-r", "-P", "{ node.name = recorder }", recording.path])
        try sandbox.waitUntilLinked("recorder", to: ["mic"])
        try sandbox.destroyNode(named: "mic")
        try daemon.waitForLog("route change: noSuitableRouteForCategory")
        let changes = LoggedRouteChange.all(in: daemon.log)
        #expect(changes.contains(LoggedRouteChange(reason: "noSuitableRouteForCategory", previous: "in[Virtual:mic] out[]", now: "in[] out[]")))
        // The studio app keeps its output; its input went away.
        #expect(changes.last(where: { $0.reason == "oldDeviceUnavailable" })
            == LoggedRouteChange(reason: "oldDeviceUnavailable", previous: "in[Virtual:mic] out[Virtual:headphones]", now: "in[] out[Virtual:headphones]"))
        #expect(try daemon.terminate() == 0)
    }

    /// Beside another session manager (`--no-linking`) routes are still followed and reported;
    /// with nothing to unlink, a session that lost its output is muted instead.
    @Test func withoutLinkingRouteChangesAreReportedAndUnplugMutes() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--no-linking"])
        try daemon.waitForLog("not linking (--linking=never)")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try daemon.waitForLog("routed to in[] out[Virtual:headphones]")
        try sandbox.destroyNode(named: "headphones")
        try daemon.waitForLog("paused: its output went away (pause on unplug, by mute)")
        #expect(LoggedRouteChange.all(in: daemon.log).last
            == LoggedRouteChange(reason: "oldDeviceUnavailable", previous: "in[] out[Virtual:headphones]", now: "in[] out[Virtual:speaker]"))
        #expect(try sandbox.linkedDevices(of: "music").isEmpty)
        // Nobody links here, so the stream never learned its format: the mute, in its
        // converter's soft mute over its user's level, goes out once that level is known (when
        // something links it). WirePlumberCoexistenceTests sees it on a linked stream.
        #expect(try daemon.terminate() == 0)
        #expect(try sandbox.dump().node(named: "music")?.softMute != true, "nothing left behind")
    }

    /// A stream that named its own target plays there: losing its session's route does not
    /// pause it. One pinned to the device that went away does pause.
    @Test func aStreamPlayingOnItsOwnTargetIsNotPausedWhenTheRouteGoes() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        try sandbox.chooseDefaultSink("headphones")
        let tone = try sandbox.testTone()
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = elsewhere application.name = radio }", "--target", "speaker"])
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = there application.name = jukebox }", "--target", "headphones"])
        try sandbox.waitUntilLinked("elsewhere", to: ["speaker"])
        try sandbox.waitUntilLinked("there", to: ["headphones"])

        try sandbox.destroyNode(named: "headphones")
        try daemon.waitForLog("paused: its output went away")
        try sandbox.waitUntilLinked("there", to: [])
        #expect(try sandbox.linkedDevices(of: "elsewhere") == ["speaker"])
        #expect(daemon.log.components(separatedBy: "paused: its output went away").count - 1 == 1)
        #expect(try daemon.terminate() == 0)
    }
}
