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
        try daemon.waitForLog("attached to PipeWire")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try daemon.waitForLog("routed to \(Self.headphonesRoute)")
        try sandbox.waitUntilLinked("music", to: [card.sinkName])

        let unplugged = ContinuousClock.now
        try card.unplugHeadphones()
        try sandbox.waitUntilLinked("music", to: [])
        print("route latency: jack unplug → music unlinked (pw-link) in \(milliseconds(since: unplugged)) ms")
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
}
