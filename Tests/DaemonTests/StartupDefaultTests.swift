import Foundation
import PipeWireSandbox
import Testing

/// Devices that are there when the daemon starts are not "newly available": the default it
/// publishes (and links streams to) is the highest `priority.session` — never the last one
/// enumerated. (A configured default wins over priority: SessionPolicy's StartupDefaultTests.)
@Suite("audiosessiond's default device at start-up", .serialized)
struct StartupDefaultTests {
    static func devices(highFirst: Bool) -> [VirtualDevice] {
        let high = VirtualDevice(name: "usb-dac", description: "USB DAC", priority: 2000)
        let low = VirtualDevice(name: "speaker", description: "Speaker", priority: 1900)
        return highFirst ? [high, low] : [low, high]
    }

    /// Waits until the `default` metadata names `sink` as the default sink.
    func waitForDefaultSink(_ sink: String, in sandbox: PrivatePipeWire, _ description: String) throws {
        try waitUntil(timeout: .seconds(5), description) { try sandbox.defaultDevice("default.audio.sink") == sink }
    }

    @Test(arguments: [true, false])
    func theHighestPriorityIsTheDefaultWhateverTheOrder(highFirst: Bool) throws {
        let sandbox = try PrivatePipeWire(devices: Self.devices(highFirst: highFirst))
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        try waitForDefaultSink("usb-dac", in: sandbox, "the daemon publishes usb-dac as the default sink")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["usb-dac"])
        #expect(try daemon.terminate() == 0)
    }

    /// The user chose the lower-priority sink (`pactl set-default-sink`, `wpctl set-default`):
    /// with no WirePlumber the daemon provides the `default` metadata, and the choice, which
    /// lives there, survives a restart of the daemon and one of PipeWire.
    @Test func theUsersChoiceSurvivesADaemonRestartAndAPipeWireRestart() throws {
        let sandbox = try PrivatePipeWire(devices: Self.devices(highFirst: true))
        let daemon = try DaemonProcess(in: sandbox)
        try waitForDefaultSink("usb-dac", in: sandbox, "usb-dac is the default sink")
        try sandbox.chooseDefaultSink("speaker")
        try waitForDefaultSink("speaker", in: sandbox, "speaker is the default sink")
        #expect(try daemon.terminate() == 0)

        let next = try DaemonProcess(in: sandbox)
        try next.waitUntilReady()  // attached, and its default metadata published
        try waitForDefaultSink("speaker", in: sandbox, "speaker is still the default sink")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["speaker"])

        try sandbox.restart()
        try next.waitUntilReady(count: 2)  // attached to the new PipeWire
        try waitForDefaultSink("speaker", in: sandbox, "speaker is the default sink after PipeWire's restart")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music2 }"])
        try sandbox.waitUntilLinked("music2", to: ["speaker"])
        #expect(try next.terminate() == 0)
    }
}
