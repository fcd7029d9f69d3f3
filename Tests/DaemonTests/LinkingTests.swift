import Foundation
import PipeWireSandbox
import Testing

/// The foundation's linking policy, end to end: the real daemon on a private PipeWire, real
/// clients, and `pw-link` / `pw-dump` as independent oracles.
@Suite("audiosessiond links streams", .serialized)
struct LinkingTests {
    /// Route changes give the music another part: a playback session whose device goes away is paused
    /// (unlinked) instead of moving to the speakers; a game (ambient) still moves.
    @Test func streamsAreLinkedToTheDefaultSinkAndMusicPausesWhenItGoes() throws {
        let sandbox = try PrivatePipeWire()
        let rig = try RouteChangeTests.Rig(sandbox)
        defer { rig.stop() }
        let daemon = rig.daemon
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.play(role: "Game", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = game }"])
        // Which sink is the default is the daemon's choice; it must publish it and follow it.
        var first: String?
        try waitUntil(timeout: .seconds(5), "the daemon publishes default.audio.sink") {
            first = try sandbox.defaultDevice("default.audio.sink")
            return first != nil
        }
        let initial = try #require(first)
        try sandbox.waitUntilLinked("music", to: [initial])
        try sandbox.waitUntilLinked("game", to: [initial])

        try sandbox.destroyNode(named: initial)
        let other = initial == "speaker" ? "headphones" : "speaker"
        try sandbox.waitUntilLinked("game", to: [other])
        try sandbox.waitUntilLinked("music", to: [])
        let music = try rig.oracle.session(ofNodeNamed: "music").id
        try rig.decisions.waitForPauses()
        #expect(rig.decisions.pausesForRouteLoss == [music], "the music, not the game, is paused")
        try waitUntil(timeout: .seconds(5), "default.audio.sink follows to \(other)") {
            try sandbox.defaultDevice("default.audio.sink") == other
        }
        #expect(try daemon.terminate() == 0)
    }

    /// A stream whose links someone else removed (a patchbay, a session manager handing
    /// linking back) is not left silent for good: the next change of devices links it again,
    /// even one that does not move it (a microphone plugged in).
    @Test func aStreamWhoseLinksWereRemovedIsLinkedAgainAtTheNextChangeOfDevices() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        let dump = try sandbox.dump()
        let music = try #require(dump.node(named: "music")).id
        let headphones = try #require(dump.node(named: "headphones")).id
        for link in dump.links
        where link.property("link.output.node") == String(music) && link.property("link.input.node") == String(headphones) {
            _ = try sandbox.run("pw-cli", ["destroy", String(link.id)])
        }
        try sandbox.waitUntilLinked("music", to: [])
        let microphone = VirtualDevice(name: "usb-mic", description: "USB microphone", kind: .source, positions: ["MONO"])
        _ = try sandbox.run("pw-cli", ["create-node", "adapter", microphone.adapterArguments])
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        #expect(try daemon.terminate() == 0)
    }

    @Test func streamsFollowTheUsersDefaultButNotTheirOwnTarget() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        try sandbox.chooseDefaultSink("speaker")
        let tone = try sandbox.testTone()
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = follower }"])
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = pinned }", "--target", "speaker"])
        try sandbox.waitUntilLinked("follower", to: ["speaker"])
        try sandbox.waitUntilLinked("pinned", to: ["speaker"])

        // The user picks another default (as wpctl set-default does): followers move, the pinned one stays.
        try sandbox.chooseDefaultSink("headphones")
        try sandbox.waitUntilLinked("follower", to: ["headphones"])
        try sandbox.waitUntilLinked("pinned", to: ["speaker"])
        #expect(try sandbox.defaultDevice("default.audio.sink") == "headphones")

        // Its target gone, the pinned stream moves to the default rather than going silent.
        try sandbox.destroyNode(named: "speaker")
        try sandbox.waitUntilLinked("pinned", to: ["headphones"])
        #expect(try daemon.terminate() == 0)
    }

    @Test func targetNamedByAMixerInMetadataMovesTheStream() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        try sandbox.chooseDefaultSink("speaker")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = moved }"])
        try sandbox.waitUntilLinked("moved", to: ["speaker"])
        let stream = try #require(try sandbox.dump().node(named: "moved"))
        // What pavucontrol / `pactl move-sink-input` do: target.object on the stream's id.
        try sandbox.run("pw-metadata", ["-n", "default", String(stream.id), "target.object", "headphones"])
        try sandbox.waitUntilLinked("moved", to: ["headphones"])
        #expect(try daemon.terminate() == 0)
    }

    @Test func pulseClientsFollowPactlSetDefaultSink() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        try sandbox.startPulse()
        try sandbox.run("pactl", ["set-default-sink", "speaker"])
        let player = try sandbox.paplay(role: "music", file: sandbox.testTone())
        let name = try waitForPulseStreamName(in: sandbox, pid: player.pid)
        try sandbox.waitUntilLinked(name, to: ["speaker"])
        try sandbox.run("pactl", ["set-default-sink", "headphones"])
        try sandbox.waitUntilLinked(name, to: ["headphones"])
        #expect(try sandbox.run("pactl", ["get-default-sink"]).trimmingCharacters(in: .whitespacesAndNewlines) == "headphones")
        #expect(try daemon.terminate() == 0)
    }

    @Test func captureStreamIsLinkedFromTheDefaultSource() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        let recording = sandbox.directory.appendingPathComponent("capture.wav")
        try sandbox.spawn("pw-cat", ["-r", "--media-role", "Communication", "-P", "{ node.name = recorder }", recording.path])
        try sandbox.waitUntilLinked("recorder", to: ["mic"])
        #expect(try sandbox.defaultDevice("default.audio.source") == "mic")
        #expect(try daemon.terminate() == 0)
    }

    @Test func noLinkingLeavesStreamsAlone() throws {
        let sandbox = try PrivatePipeWire()
        let rig = try RouteChangeTests.Rig(sandbox, arguments: ["--verbose", "--no-linking"])
        defer { rig.stop() }
        let daemon = rig.daemon
        #expect(try rig.oracle.status()["linking"] as? String == "not linking (--linking=never)")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        // The daemon has seen the stream (its session has it: it had its chance to act) ...
        _ = try rig.oracle.session(ofNodeNamed: "music")
        let stream = try #require(try sandbox.dump().node(named: "music"))
        // ... and a PipeWire round-trip later, still nothing is linked and no default was provided.
        _ = try sandbox.run("pw-cli", ["info", String(stream.id)])
        #expect(try sandbox.linkedDevices(of: "music").isEmpty)
        #expect(try sandbox.dump().metadataValue("default", key: "default.audio.sink") == nil)
        #expect(try daemon.terminate() == 0)
    }

    private func waitForPulseStreamName(in sandbox: PrivatePipeWire, pid: Int32) throws -> String {
        var name: String?
        try waitUntil(timeout: .seconds(5), "the paplay stream appears") {
            name = try sandbox.dump().nodes.first { $0.property("application.process.id") == String(pid) && $0.mediaClass == "Stream/Output/Audio" }?.name
            return name != nil
        }
        return try #require(name)
    }
}
