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

    @Test(arguments: [true, false])
    func theHighestPriorityIsTheDefaultWhateverTheOrder(highFirst: Bool) throws {
        let sandbox = try PrivatePipeWire(devices: Self.devices(highFirst: highFirst))
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitForLog("attached to PipeWire")
        try waitUntil(timeout: .seconds(5), "the daemon publishes usb-dac as the default sink") {
            try sandbox.defaultDevice("default.audio.sink") == "usb-dac"
        }
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["usb-dac"])
        #expect(try daemon.terminate() == 0)
    }
}
