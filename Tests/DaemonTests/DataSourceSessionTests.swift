import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// Data sources on a real PipeWire: the test card's microphone (internal, and a headset's while
/// the headset is in) as a voice memo's `InputDataSources`; its choice switches the card's
/// input route while the session is active (`SetParam Route`, as a mixer's switch), and the card
/// gets back the route it had at deactivation and after a SIGKILL (at the next start).
@Suite("Session1: data sources on the card's microphone", .serialized)
struct DataSourceSessionTests {
    typealias Rig = InputGainSessionTests.Rig
    typealias Recorder = InputGainSessionTests.Recorder

    static func source(_ id: UInt32, _ name: String) -> BusValue {
        .structure([.uint32(id), .string(name), .string(""), .string("")])
    }
    static let internalMic = source(2, "Internal Microphone")
    static let headsetMic = source(3, "Headset Microphone")

    @Test func aChosenMicrophoneIsTheCardsWhileActiveAndItsRouteComesBack() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        var daemon = try rig.startDaemon()
        var memo = try await Recorder(on: rig)
        try await memo.call("SetActive", [.bool(true), .uint32(0)])
        try await memo.eventually("InputDataSources", is: .array(element: "(usss)", [Self.internalMic]))
        try await memo.eventually("InputDataSource", is: .int32(2))
        #expect(try await memo.property("OutputDataSources") == .array(element: "(usss)", []), "a recorder has no output")

        // A headset: the card switches to its microphone by itself, as a real card does.
        try rig.card.plugHeadphones()
        try await memo.eventually("InputDataSources", is: .array(element: "(usss)", [Self.internalMic, Self.headsetMic]))
        try await memo.eventually("InputDataSource", is: .int32(3))

        // The memo wants the laptop's own microphone while it records.
        try await memo.call("SetInputDataSource", [.int32(2)])
        try await memo.eventually("InputDataSource", is: .int32(2))
        #expect(try await memo.property("PreferredInputDataSource") == .int32(2))
        #expect(rig.card.selectedInputRoutes == [.internalMic])
        try await memo.call("SetActive", [.bool(false), .uint32(0)])
        try await memo.eventually("InputDataSource", is: .int32(3))
        #expect(rig.card.selectedInputRoutes == [.internalMic, .headsetMic], "the route it had")

        await #expect(throws: BusError.self) { try await memo.call("SetInputDataSource", [.int32(9)]) }

        try await memo.call("SetActive", [.bool(true), .uint32(0)])
        try await memo.eventually("InputDataSource", is: .int32(2))
        kill(daemon.process.pid, SIGKILL)
        _ = try daemon.process.waitForExit(timeout: .seconds(5))
        memo.connection.close()
        daemon = try rig.startDaemon()
        try waitUntil(timeout: .seconds(5), "the card's input route is given back (\(rig.card.selectedInputRoutes))") {
            rig.card.selectedInputRoutes.last == .headsetMic && rig.card.selectedInputRoutes.count == 4
        }
        memo = try await Recorder(on: rig)
        defer { memo.connection.close() }
        try await memo.eventually("InputDataSource", is: .int32(3))
        #expect(try daemon.terminate() == 0)
    }
}
