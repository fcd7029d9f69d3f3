import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// `SetInputGain` on a real PipeWire, on the test card's microphone (a card source whose device
/// has two input routes): the gain is the source's volume while the voice memo's session is
/// active, its user's volume comes back after — on deactivation, at SIGTERM, and after a SIGKILL
/// at the next start — and a volume the user sets meanwhile stays.
@Suite("Session1: input gain on the card's microphone", .serialized)
struct InputGainSessionTests {
    static let service = "org.audiosession.Manager1"
    static let sessionInterface = "org.audiosession.Session1"
    /// The user's volume: 0.8 on the slider, 0.512 linear.
    static let usersVolume = 0.512

    struct Rig {
        let sandbox: PrivatePipeWire
        let bus: PrivateSessionBus
        let card: RouteDevice
        var source: String { card.sourceName }

        init() throws {
            sandbox = try PrivatePipeWire(devices: [VirtualDevice.standard[0]])
            bus = try PrivateSessionBus()
            card = try sandbox.startRouteDevice()
        }

        func stop() {
            bus.stop()
            sandbox.stop()
        }

        func startDaemon() throws -> DaemonProcess {
            let daemon = try DaemonProcess(in: sandbox, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            try daemon.waitUntilReady()
            return daemon
        }

        /// The user's volume control (pw-cli, as a mixer would).
        func setVolume(_ linear: Double) throws {
            let id = try #require(try sandbox.dump().node(named: source)?.id)
            _ = try sandbox.run("pw-cli", ["set-param", String(id), "Props", "{ channelVolumes: [ \(linear), \(linear) ] }"])
            try waitUntilVolume(is: linear)
        }

        func waitUntilVolume(is linear: Double) throws {
            var seen: [Double]?
            try waitUntil(timeout: .seconds(5), "\(source) at \(linear) (now \(String(describing: seen)))") {
                seen = try sandbox.dump().node(named: source)?.channelVolumes
                return seen.map { $0.count == 2 && $0.allSatisfy { abs($0 - linear) < 0.001 } } ?? false
            }
        }
    }

    /// A recorder's explicit session, created over the bus.
    struct Recorder {
        let connection: BusConnection
        let path: String

        init(on rig: Rig) async throws {
            connection = try BusConnection(address: rig.bus.address)
            let created = try await connection.call(
                InputGainSessionTests.service, path: "/org/audiosession/Manager1", interface: "org.audiosession.Manager1",
                member: "CreateSession", [.string("memo")], timeout: .seconds(5))
            path = try #require(created.first?.stringValue)
            try await call("SetCategory", [.string("record"), .string("default"), .uint32(0)])
        }

        func call(_ member: String, _ arguments: [BusValue] = []) async throws {
            _ = try await connection.call(
                InputGainSessionTests.service, path: path, interface: InputGainSessionTests.sessionInterface, member: member,
                arguments, timeout: .seconds(5))
        }

        func property(_ name: String) async throws -> BusValue {
            try await connection.property(
                name, of: InputGainSessionTests.sessionInterface, at: path, on: InputGainSessionTests.service, timeout: .seconds(5))
        }

        func eventually(_ name: String, is expected: BusValue) async throws {
            var last: BusValue?
            try await waitUntil(timeout: .seconds(5), "\(name) is \(expected) (now \(String(describing: last)))") { () async throws -> Bool in
                last = try await property(name)
                return last == expected
            }
        }
    }

    @Test func theGainHoldsWhileActiveAndTheUsersVolumeComesBack() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let daemon = try rig.startDaemon()
        let memo = try await Recorder(on: rig)
        defer { memo.connection.close() }
        try rig.setVolume(Self.usersVolume)
        try await memo.eventually("IsInputGainSettable", is: .bool(true))
        try await memo.eventually("InputGain", is: .double(0.8))

        try await memo.call("SetInputGain", [.double(0.5)])
        #expect(try rig.sandbox.dump().node(named: rig.source)?.channelVolumes == [Self.usersVolume, Self.usersVolume],
                "not active yet: nothing written")
        try await memo.call("SetActive", [.bool(true), .uint32(0)])
        try rig.waitUntilVolume(is: 0.125)
        try await memo.eventually("InputGain", is: .double(0.5))
        try await memo.call("SetActive", [.bool(false), .uint32(0)])
        try rig.waitUntilVolume(is: Self.usersVolume)
        try await memo.eventually("InputGain", is: .double(0.8))

        // The user turns the microphone down while the gain holds: theirs stays.
        try await memo.call("SetActive", [.bool(true), .uint32(0)])
        try rig.waitUntilVolume(is: 0.125)
        try rig.setVolume(0.027)
        try await memo.eventually("InputGain", is: .double(0.3))
        try await memo.call("SetActive", [.bool(false), .uint32(0)])
        try daemon.waitForLog("its user set the input volume to 0.3; it stays")
        #expect(try rig.sandbox.dump().node(named: rig.source)?.channelVolumes == [0.027, 0.027])

        // Refusals: outside 0…1, and a category without input.
        await #expect(throws: BusError.self) { try await memo.call("SetInputGain", [.double(1.5)]) }
        try await memo.call("SetCategory", [.string("playback"), .string("default"), .uint32(0)])
        await #expect(throws: BusError.self) { try await memo.call("SetInputGain", [.double(0.5)]) }
        try await memo.eventually("IsInputGainSettable", is: .bool(false))
        #expect(try daemon.terminate() == 0)
    }

    @Test func nothingOutlivesTheDaemonNotEvenSIGKILL() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        var daemon = try rig.startDaemon()
        var memo = try await Recorder(on: rig)
        try await memo.eventually("IsInputGainSettable", is: .bool(true))  // the daemon has read the source's volume
        try await memo.call("SetInputGain", [.double(0.5)])
        try rig.setVolume(Self.usersVolume)
        try await memo.call("SetActive", [.bool(true), .uint32(0)])
        try rig.waitUntilVolume(is: 0.125)
        #expect(try daemon.terminate() == 0)
        try rig.waitUntilVolume(is: Self.usersVolume)
        memo.connection.close()

        daemon = try rig.startDaemon()
        memo = try await Recorder(on: rig)
        defer { memo.connection.close() }
        try await memo.eventually("IsInputGainSettable", is: .bool(true))
        try await memo.call("SetInputGain", [.double(0.5)])
        try await memo.call("SetActive", [.bool(true), .uint32(0)])
        try rig.waitUntilVolume(is: 0.125)
        kill(daemon.process.pid, SIGKILL)
        _ = try daemon.process.waitForExit(timeout: .seconds(5))
        #expect(try rig.sandbox.dump().node(named: rig.source)?.channelVolumes == [0.125, 0.125], "nothing undone yet")
        let next = try rig.startDaemon()
        try rig.waitUntilVolume(is: Self.usersVolume)  // undone by the next start, from its journal
        #expect(try next.terminate() == 0)
    }
}
