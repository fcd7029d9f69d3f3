import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// What an explicit session reads about the desktop's state, on a real PipeWire: a navigation
/// app's `PromptStyle` follows a call and a recording of other apps; `IsInputAvailable` follows
/// the microphone coming and going; the maximum channel counts are the route's devices'.
@Suite("Session1: prompt style, input availability, channel maxima", .serialized)
struct SessionHardwarePropertiesTests {
    static let service = "org.audiosession.Manager1"
    static let sessionInterface = "org.audiosession.Session1"

    @Test func promptStyleFollowsACallAndARecordingAndInputAvailabilityTheMicrophone() async throws {
        // Headphones in use (PipeWire 1.4 applies a volume to a running null sink only).
        var devices = VirtualDevice.standard
        devices[1].alwaysProcess = true
        let sandbox = try PrivatePipeWire(devices: devices)
        defer { sandbox.stop() }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let daemon = try DaemonProcess(in: sandbox, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        try daemon.waitUntilReady()
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        // The navigation app is a process of its own: the call and the recorder below are other
        // apps, not children of the session's owner (whose streams would join its session).
        let navigation = try sandbox.spawn(
            DaemonProcess.path(of: "audiosessionctl"),
            ["run", "--category", "playAndRecord", "--app", "navigation", "--", "sleep", "600"],
            extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        defer { navigation.terminate() }
        var path = ""
        try await waitUntil(timeout: .seconds(10), "the navigation app's session exists\n\(daemon.log)") { () async throws -> Bool in
            let sessions = try await connection.property(
                "Sessions", of: Self.service, at: "/org/audiosession/Manager1", on: Self.service, timeout: .seconds(5))
            path = sessions.arrayValue?.first?.stringValue ?? ""
            return !path.isEmpty
        }
        func property(_ name: String) async throws -> BusValue {
            try await connection.property(name, of: Self.sessionInterface, at: path, on: Self.service, timeout: .seconds(5))
        }
        func eventually(_ name: String, is expected: BusValue) async throws {
            var last: BusValue?
            try await waitUntil(timeout: .seconds(10), "\(name) is \(expected) (now \(String(describing: last)))\n\(daemon.log)") { () async throws -> Bool in
                last = try await property(name)
                return last == expected
            }
        }
        try await eventually("Category", is: .string("playAndRecord"))

        try await eventually("PromptStyle", is: .string("normal"))
        try await eventually("IsInputAvailable", is: .bool(true))
        #expect(try await property("MaximumOutputNumberOfChannels") == .uint32(2), "the stereo speaker")
        #expect(try await property("MaximumInputNumberOfChannels") == .uint32(1), "the mono microphone")

        let tone = try sandbox.testTone()
        let call = try sandbox.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
        try await eventually("PromptStyle", is: .string("short"))
        call.terminate()
        try await eventually("PromptStyle", is: .string("normal"))
        let recording = sandbox.directory.appendingPathComponent("memo.wav")
        let recorder = try sandbox.spawn("pw-cat", ["-r", "-P", "{ node.name = memo }", recording.path])
        try await eventually("PromptStyle", is: .string("none"))
        recorder.terminate()
        try await eventually("PromptStyle", is: .string("normal"))

        // The user's volume of the headphones (a quarter-turn of their slider: 0.5³ linear),
        // then their mute: read, never written.
        try await eventually("OutputVolume", is: .double(1))
        let headphones = try #require(try sandbox.dump().node(named: "headphones")?.id)
        _ = try sandbox.run("pw-cli", ["set-param", String(headphones), "Props", "{ channelVolumes: [ 0.125, 0.125 ] }"])
        try await eventually("OutputVolume", is: .double(0.5))
        _ = try sandbox.run("pw-cli", ["set-param", String(headphones), "Props", "{ mute: true }"])
        try await eventually("OutputVolume", is: .double(0))
        _ = try sandbox.run("pw-cli", ["set-param", String(headphones), "Props", "{ mute: false }"])
        try await eventually("OutputVolume", is: .double(0.5))
        #expect(try sandbox.dump().node(named: "headphones")?.channelVolumes == [0.125, 0.125], "the user's volume, untouched")

        let changes = try await connection.signals(path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        let signalled = Task { () -> Bool in
            for await signal in changes where signal.arguments.count == 3
                && signal.arguments[1].dictionaryValue?["IsInputAvailable"] == .bool(false) { return true }
            return false
        }
        try sandbox.destroyNode(named: "mic")
        try await eventually("IsInputAvailable", is: .bool(false))
        let timeout = Task { try await Task.sleep(for: TestTime.scaled(.seconds(5))); signalled.cancel() }
        #expect(await signalled.value, "PropertiesChanged says the input went away")
        timeout.cancel()
        #expect(try daemon.terminate() == 0)
    }
}
