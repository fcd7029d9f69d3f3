import PipeWireGraph
import SessionPolicy
import Testing
@testable import AudioSessionDaemon

/// A headset's active profile from its `Profile` param and its nodes: pure, no PipeWire needed.
@Suite struct HeadsetReadingTests {
    static let profiles = [
        DeviceProfile(index: 0, name: "off", priority: 0),
        DeviceProfile(index: 1, name: "a2dp-sink", priority: 16),
        DeviceProfile(index: 5, name: "a2dp-sink-sbc", priority: 16),
        DeviceProfile(index: 2, name: "headset-head-unit", priority: 1),
        DeviceProfile(index: 261, name: "headset-head-unit-cvsd", priority: 1),
        DeviceProfile(index: 262, name: "headset-head-unit-msbc", priority: 2),
    ]

    static func headset(param: Int?, nodes: [(profile: String, codec: String)]) -> (Device, GraphSnapshot) {
        let device = Device(
            id: 1, name: "bluez_card.AA", properties: ["device.api": "bluez5"], profiles: profiles,
            activeProfile: param.flatMap { index in profiles.first { $0.index == index } })
        var table = GraphSnapshot.Table<Node>()
        for (offset, node) in nodes.enumerated() {
            let id = GlobalID(10 + offset)
            table[id] = Node(
                id: id, name: "bluez_output.AA.\(offset)", mediaClass: "Audio/Sink", deviceID: 1,
                properties: ["api.bluez5.profile": node.profile, "api.bluez5.codec": node.codec, "device.api": "bluez5"])
        }
        return (device, GraphSnapshot(nodes: table, devices: [1: device]))
    }

    /// The param is believed while the nodes are of its kind.
    @Test func theParamWhileTheNodesAgree() {
        let (device, snapshot) = Self.headset(param: 5, nodes: [("a2dp-sink", "sbc")])
        #expect(HeadsetReading.activeProfile(of: device, in: snapshot)?.index == 5)
        let (off, none) = Self.headset(param: 0, nodes: [])
        #expect(HeadsetReading.activeProfile(of: off, in: none)?.index == 0)
    }

    /// PipeWire's cache kept `a2dp-sink-sbc` while the HFP nodes ran: the nodes' profile and
    /// codec win, and the policy hears a headset in its call profile.
    @Test func theNodesWhenTheParamIsStale() {
        let (device, snapshot) = Self.headset(param: 5, nodes: [("headset-head-unit", "cvsd")])
        #expect(HeadsetReading.activeProfile(of: device, in: snapshot)?.index == 261)
        #expect(HeadsetReading.profiles(of: device, in: snapshot)?.active == .call)
        let (back, media) = Self.headset(param: 261, nodes: [("a2dp-sink", "aac")])
        #expect(HeadsetReading.activeProfile(of: back, in: media)?.index == 1, "no aac profile: the codec-less one of that name")
        #expect(HeadsetReading.profiles(of: back, in: media)?.active == .media)
    }

    /// Mid-switch both kinds' nodes can be there: the newest says.
    @Test func theNewestNodeWhenBothKindsAreThere() {
        let (device, snapshot) = Self.headset(param: 5, nodes: [("a2dp-sink", "sbc"), ("headset-head-unit", "msbc")])
        #expect(HeadsetReading.activeProfile(of: device, in: snapshot)?.index == 262)
    }
}
