import Foundation
import PipeWireSandbox
import Testing

/// The linking policy follows the engine's routes: last in wins for new devices (an HDMI sink
/// is ignored), multiRoute plays on every eligible output at once.
@Suite("Routes: last in wins, HDMI ignored, multiRoute", .serialized)
struct RouteLinkingTests {
    @Test func aNewUSBSinkTakesOverPlaybackAndAnHDMISinkDoesNot() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let rig = try RouteChangeTests.Rig(sandbox)
        defer { rig.stop() }
        let daemon = rig.daemon
        try sandbox.chooseDefaultSink("speaker")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["speaker"])
        let music = try rig.oracle.session(ofNodeNamed: "music").id

        // A monitor wakes up: its HDMI sink appears (the daemon lists it as an HDMI port) and is
        // left alone.
        try sandbox.createSink(named: "alsa_output.pci-0000_00_1f.3.hdmi-stereo")
        try waitUntil(timeout: .seconds(5), "the daemon offers the HDMI sink as an HDMI port") {
            let outputs = try rig.oracle.status()["availableOutputs"] as? [[String: Any]] ?? []
            return outputs.contains { $0["uid"] as? String == "alsa_output.pci-0000_00_1f.3.hdmi-stereo" && $0["type"] as? String == "HDMI" }
        }
        #expect(try sandbox.linkedDevices(of: "music") == ["speaker"])
        #expect(try sandbox.defaultDevice("default.audio.sink") == "speaker")
        #expect(rig.decisions.changes.isEmpty, "no route changed: \(rig.decisions.changes)")

        // A USB DAC is plugged in: last in wins, the music moves there, and the default follows.
        try sandbox.createSink(named: "usb-dac", properties: ["device.bus": "usb"])
        try sandbox.waitUntilLinked("music", to: ["usb-dac"])
        #expect(try rig.decisions.waitForChange("newDeviceAvailable") == .init(session: music, reason: "newDeviceAvailable", previous: "in[] out[virtual:speaker]"))
        #expect(try rig.oracle.route(of: music) == "in[] out[usbAudio:usb-dac]")
        try waitUntil(timeout: .seconds(5), "default.audio.sink follows the last in") {
            try sandbox.defaultDevice("default.audio.sink") == "usb-dac"
        }
        // A stream that names its own target still goes there.
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = pinned }", "--target", "speaker"])
        try sandbox.waitUntilLinked("pinned", to: ["speaker"])
        #expect(try daemon.terminate() == 0)
    }

    @Test func aMultiRouteSessionPlaysOnEveryEligibleOutputAtOnce() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let rules = sandbox.directory.appendingPathComponent("rules.d")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try """
            audiosession.rules = [
                { matches = [ { application.name = "daw" } ]  actions = { classify = { category = multiRoute } } }
            ]
            """.write(to: rules.appendingPathComponent("50-daw.conf"), atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--rules", rules.path])
        try daemon.waitUntilReady()
        try sandbox.createSink(named: "usb-interface", properties: ["device.bus": "usb"])
        try sandbox.createSink(named: "line-out", properties: ["device.form-factor": "speaker", "device.bus": "pci"])
        try sandbox.createSink(named: "usb-headset", properties: ["device.bus": "usb", "device.form-factor": "headset"])
        let tone = try sandbox.testTone()
        try sandbox.play(role: nil, file: tone, extraArguments: ["-P", "{ node.name = daw application.name = daw }"])
        // Virtual sinks and the built-in speaker are not multiRoute outputs while USB ones exist.
        try sandbox.waitUntilLinked("daw", to: ["usb-interface", "usb-headset"])
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["usb-headset"])
        // One of them goes: the other keeps playing (multiRoute is not paused on unplug).
        try sandbox.destroyNode(named: "usb-headset")
        try sandbox.waitUntilLinked("daw", to: ["usb-interface"])
        #expect(try daemon.terminate() == 0)
    }

    /// The rules knobs: a port rule types a sink, and the takeover ignore list leaves it alone.
    @Test func portRulesAndTheTakeoverIgnoreListComeFromPolicyRules() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let rules = sandbox.directory.appendingPathComponent("rules.d")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try """
            audiosession.settings = { route.takeover.ignore = [ lineOut ] }
            audiosession.port-rules = [
                { matches = [ { node.name = "studio-monitors" } ]  actions = { port-type = lineOut } }
            ]
            """.write(to: rules.appendingPathComponent("50-studio.conf"), atomically: true, encoding: .utf8)
        let rig = try RouteChangeTests.Rig(sandbox, arguments: ["--verbose", "--rules", rules.path])
        defer { rig.stop() }
        let daemon = rig.daemon
        try sandbox.chooseDefaultSink("speaker")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["speaker"])
        try sandbox.createSink(named: "studio-monitors")
        try waitUntil(timeout: .seconds(5), "the port rule types the studio monitors line out") {
            let outputs = try rig.oracle.status()["availableOutputs"] as? [[String: Any]] ?? []
            return outputs.contains { $0["uid"] as? String == "studio-monitors" && $0["type"] as? String == "lineOut" }
        }
        #expect(try sandbox.linkedDevices(of: "music") == ["speaker"])
        // HDMI is no longer on the list: a TV now takes over.
        try sandbox.createSink(named: "tv.hdmi-stereo")
        try sandbox.waitUntilLinked("music", to: ["tv.hdmi-stereo"])
        #expect(try daemon.terminate() == 0)
    }
}
