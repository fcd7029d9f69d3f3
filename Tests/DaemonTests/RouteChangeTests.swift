import Foundation
import PipeWireSandbox
import Testing

/// Route changes on a real PipeWire under the real daemon: a card whose headphone jack flips
/// (the sandbox's route device), null sinks plugged and unplugged, the user's default choice.
/// Each change is read as the daemon sends it on the bus (`Decision` signals: `routeChanged`
/// with its reason and previous route, `pauseForRouteLoss`), each session's route from
/// `status --json`, and the links with `pw-link` (an independent oracle).
@Suite("Routes: reasons, previous routes, pause on unplug", .serialized)
struct RouteChangeTests {
    static let headphonesRoute = "in[] out[headphones:card-output:analog-output-headphones]"
    static let speakerRoute = "in[] out[builtInSpeaker:card-output:analog-output-speaker]"

    /// The daemon on `sandbox` with a bus of its own, ready, and a monitor of its decisions.
    struct Rig {
        let bus: PrivateSessionBus
        let daemon: DaemonProcess
        let decisions: BusDecisions
        let oracle: SessionOracle

        init(_ sandbox: PrivatePipeWire, arguments: [String] = ["--verbose"]) throws {
            bus = try PrivateSessionBus()
            daemon = try DaemonProcess(in: sandbox, arguments: arguments, environment: bus.environment)
            try daemon.waitUntilReady()
            decisions = try BusDecisions(in: sandbox, bus: bus)
            oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
        }

        func stop() {
            decisions.terminate()
            bus.stop()
        }
    }

    @Test func unpluggingTheHeadphonesPausesTheMusicAndPluggingThemInDoesNotResumeIt() throws {
        let sandbox = try PrivatePipeWire(devices: [VirtualDevice(name: "mic", kind: .source, positions: ["MONO"])])
        defer { sandbox.stop() }
        let card = try sandbox.startRouteDevice(name: "card", description: "Built-in Audio")
        try card.plugHeadphones()
        let rig = try Rig(sandbox)
        defer { rig.stop() }
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        let music = try rig.oracle.session(ofNodeNamed: "music").id
        try waitUntil(timeout: .seconds(5), "the music is routed to the headphones") { try rig.oracle.route(of: music) == Self.headphonesRoute }
        try sandbox.waitUntilLinked("music", to: [card.sinkName])

        let probe = try RouteLatencyProbe(sandbox, watching: "music")
        let unplugged = ContinuousClock.now
        try card.unplugHeadphones()
        try sandbox.waitUntilLinked("music", to: [])
        print("route latency: jack unplug → music unlinked (pw-link) in \(milliseconds(since: unplugged)) ms")
        try waitUntil(timeout: .seconds(5), "the probe saw the unlink") { probe.unlinkedAt != nil }
        let flip = try #require(card.lastFlip(available: false))
        print("route latency (observer): jack flipped in the card → music's last link gone in \(String(format: "%.2f", (probe.unlinkedAt! - flip) * 1000)) ms")
        try rig.decisions.waitForPauses()
        #expect(rig.decisions.pausesForRouteLoss == [music])
        #expect(try rig.decisions.waitForChange("oldDeviceUnavailable") == .init(session: music, reason: "oldDeviceUnavailable", previous: Self.headphonesRoute))
        #expect(try rig.oracle.route(of: music) == Self.speakerRoute)

        // Back in: the route moves to the headphones again, but the music stays paused (Apple:
        // newDeviceAvailable never starts playback by itself).
        try card.plugHeadphones()
        #expect(try rig.decisions.waitForChange("newDeviceAvailable") == .init(session: music, reason: "newDeviceAvailable", previous: Self.speakerRoute))
        #expect(try rig.oracle.route(of: music) == Self.headphonesRoute)
        _ = try sandbox.run("pw-cli", ["info", "0"])  // a round-trip: any relink would be visible by now
        #expect(try sandbox.linkedDevices(of: "music").isEmpty)
        #expect(try rig.daemon.terminate() == 0)
    }

    @Test func unpluggingTheSinkTheMusicPlaysOnPausesItAndTheUsersChoiceDoesNot() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let rig = try Rig(sandbox)
        defer { rig.stop() }
        try sandbox.chooseDefaultSink("headphones")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        let music = try rig.oracle.session(ofNodeNamed: "music").id

        // The user picks the speaker: an override; the music moves and keeps playing.
        try sandbox.chooseDefaultSink("speaker")
        try sandbox.waitUntilLinked("music", to: ["speaker"])
        #expect(try rig.decisions.waitForChange("override") == .init(session: music, reason: "override", previous: "in[] out[virtual:headphones]"))
        #expect(try rig.oracle.route(of: music) == "in[] out[virtual:speaker]")
        #expect(rig.decisions.pausesForRouteLoss.isEmpty)

        // The speaker goes away under the music: it pauses rather than moving to the headphones.
        let unplugged = ContinuousClock.now
        try sandbox.destroyNode(named: "speaker")
        try sandbox.waitUntilLinked("music", to: [])
        print("route latency: sink removed (pw-cli destroy returned) → music unlinked in \(milliseconds(since: unplugged)) ms")
        try rig.decisions.waitForPauses()
        #expect(try rig.decisions.waitForChange("oldDeviceUnavailable") == .init(session: music, reason: "oldDeviceUnavailable", previous: "in[] out[virtual:speaker]"))
        #expect(try rig.oracle.route(of: music) == "in[] out[virtual:headphones]")
        #expect(try rig.daemon.terminate() == 0)
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
        let rig = try Rig(sandbox, arguments: ["--verbose", "--rules", rules.path])
        defer { rig.stop() }
        try sandbox.chooseDefaultSink("headphones")
        let tone = try sandbox.testTone()
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music application.name = studio }"])
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        let studio = try rig.oracle.session(ofNodeNamed: "music").id

        try """
            audiosession.rules = [
                { matches = [ { node.name = "recorder" } ]  actions = { classify = { category = record } } }
                { matches = [ { application.name = "studio" } ]
                  actions = { classify = { category = playAndRecord  options = [ defaultToSpeaker ] } } }
            ]
            """.write(to: rules.appendingPathComponent("50-recorder.conf"), atomically: true, encoding: .utf8)
        #expect(try rig.decisions.waitForChange("categoryChange") == .init(session: studio, reason: "categoryChange", previous: "in[] out[virtual:headphones]"))
        #expect(try rig.oracle.route(of: studio) == "in[virtual:mic] out[virtual:headphones]")
        try sandbox.waitUntilLinked("music", to: ["headphones"])

        let recording = sandbox.directory.appendingPathComponent("capture.wav")
        try sandbox.spawn("pw-cat", ["-r", "-P", "{ node.name = recorder }", recording.path])
        try sandbox.waitUntilLinked("recorder", to: ["mic"])
        let recorder = try rig.oracle.session(ofNodeNamed: "recorder").id
        try sandbox.destroyNode(named: "mic")
        #expect(try rig.decisions.waitForChange("noSuitableRouteForCategory") == .init(session: recorder, reason: "noSuitableRouteForCategory", previous: "in[virtual:mic] out[]"))
        #expect(try rig.oracle.route(of: recorder) == "in[] out[]")
        // The studio app keeps its output; its input went away.
        #expect(try rig.decisions.waitForChange("oldDeviceUnavailable") == .init(session: studio, reason: "oldDeviceUnavailable", previous: "in[virtual:mic] out[virtual:headphones]"))
        #expect(try rig.oracle.route(of: studio) == "in[] out[virtual:headphones]")
        #expect(try rig.daemon.terminate() == 0)
    }

    /// Beside another session manager (`--no-linking`) routes are still followed and reported;
    /// with nothing to unlink, a session that lost its output is muted instead.
    @Test func withoutLinkingRouteChangesAreReportedAndUnplugMutes() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let rig = try Rig(sandbox, arguments: ["--verbose", "--no-linking"])
        defer { rig.stop() }
        #expect(try rig.oracle.status()["linking"] as? String == "not linking (--linking=never)")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        let music = try rig.oracle.session(ofNodeNamed: "music").id
        try waitUntil(timeout: .seconds(5), "the music is routed to the headphones") { try rig.oracle.route(of: music) == "in[] out[virtual:headphones]" }
        try sandbox.destroyNode(named: "headphones")
        try rig.decisions.waitForPauses()
        #expect(try rig.decisions.waitForChange("oldDeviceUnavailable") == .init(session: music, reason: "oldDeviceUnavailable", previous: "in[] out[virtual:headphones]"))
        #expect(try rig.oracle.route(of: music) == "in[] out[virtual:speaker]")
        #expect(rig.decisions.pauseMethods == ["mute"], "nothing to unlink: paused by mute")
        #expect(try sandbox.linkedDevices(of: "music").isEmpty)
        // Nobody links here, so the stream never learned its format: the mute, in its
        // converter's soft mute over its user's level, goes out once that level is known (when
        // something links it). WirePlumberCoexistenceTests sees it on a linked stream.
        #expect(try rig.daemon.terminate() == 0)
        #expect(try sandbox.dump().node(named: "music")?.softMute != true, "nothing left behind")
    }

    /// A stream that named its own target plays there: losing its session's route does not
    /// pause it. One pinned to the device that went away does pause.
    @Test func aStreamPlayingOnItsOwnTargetIsNotPausedWhenTheRouteGoes() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let rig = try Rig(sandbox)
        defer { rig.stop() }
        try sandbox.chooseDefaultSink("headphones")
        let tone = try sandbox.testTone()
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = elsewhere application.name = radio }", "--target", "speaker"])
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = there application.name = jukebox }", "--target", "headphones"])
        try sandbox.waitUntilLinked("elsewhere", to: ["speaker"])
        try sandbox.waitUntilLinked("there", to: ["headphones"])

        let jukebox = try rig.oracle.session(ofNodeNamed: "there").id
        try sandbox.destroyNode(named: "headphones")
        try rig.decisions.waitForPauses()
        try sandbox.waitUntilLinked("there", to: [])
        #expect(try sandbox.linkedDevices(of: "elsewhere") == ["speaker"])
        #expect(rig.decisions.pausesForRouteLoss == [jukebox], "only the jukebox, pinned to the headphones, pauses")
        #expect(try rig.daemon.terminate() == 0)
    }
}
