import AudioSession
import Foundation
import PipeWireSandbox
import Testing

/// A Bluetooth headset playing music (A2DP, no microphone) still offers its microphone, as iOS
/// lists an HFP headset's: a session that may record from Bluetooth sees it in
/// `availableInputs`, and choosing it switches the headset to its call profile and records from
/// it; the headset gets its profile back after. Read through the library and `pw-dump`.
@Suite("A headset's microphone while it plays music", .serialized)
struct HeadsetMicrophoneTests {
    @Test func choosingTheHeadsetsMicrophoneSwitchesTheHeadsetForIt() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let headset = try sandbox.pipewire.startBluetoothHeadset()
        // The user listens on the headphones: the headset is not the output they have now.
        try sandbox.pipewire.run("pw-metadata", ["-n", "default", "0", "default.configured.audio.sink", "{ \"name\": \"headphones\" }"])
        try waitUntil(timeout: .seconds(10), "the system route plays on the headphones") {
            let status = try sandbox.ctl(["status", "--json"]).output
            let object = try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any]
            let outputs = (object?["currentRoute"] as? [String: Any])?["outputs"] as? [[String: Any]]
            return outputs?.first?["uid"] as? String == "headphones"
        }
        let session = AudioSession(address: sandbox.bus.address, app: "memo")
        try await session.setCategory(.record, options: [.allowBluetooth])
        try await session.setActive(true)
        var inputs: [PortDescription] = []
        try await waitUntil(timeout: .seconds(10), "the headset's microphone is offered (inputs \(inputs))") { () async throws -> Bool in
            inputs = try await session.availableInputs
            return inputs.contains { $0.portType == .bluetoothHFP }
        }
        let offered = try #require(inputs.first { $0.portType == .bluetoothHFP })
        #expect(offered.uid.hasPrefix(headset.deviceName), "named by the headset: its node does not exist yet (\(offered.uid))")
        #expect(headset.profileRequests.isEmpty, "nothing switched before it is chosen: \(headset.profileRequests)")
        #expect(try await session.currentRoute.inputs.map(\.uid) == ["mic"])

        try await session.setPreferredInput(offered)
        try await waitUntil(timeout: .seconds(10), "the headset is in HFP (its profiles \(headset.profileChanges))") { () async throws -> Bool in
            headset.activeProfile.map { BluetoothHeadset.Profile.headsetHeadUnit.matches($0) } == true
        }
        var route: [String] = []
        try await waitUntil(timeout: .seconds(10), "the session records from the headset (route \(route))") { () async throws -> Bool in
            route = try await session.currentRoute.inputs.map(\.uid)
            return route.count == 1 && route[0].hasPrefix(headset.sourceName)
        }
        #expect(headset.profileRequests.allSatisfy { !$0.save })

        try await session.setActive(false)
        try await waitUntil(timeout: .seconds(15), "the headset is back in A2DP (its profiles \(headset.profileChanges))") { () async throws -> Bool in
            headset.activeProfile.map { BluetoothHeadset.Profile.a2dpSink.matches($0) } == true
        }
        await session.close()
    }
}
