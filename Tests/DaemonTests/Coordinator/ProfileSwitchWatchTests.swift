import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// Both backends tell a device switching profile from an unplug by whether the device (a
/// PipeWire device, a PulseAudio card) is still there when its port goes.
@Suite("A port that goes while its device stays leaves with the device's profile")
struct ProfileSwitchWatchTests {
    let a2dp = Port(uid: "bt.1:headset-output", nodeID: 50, type: .bluetoothA2DP, direction: .output, deviceID: "bt")
    let bare = Port(uid: "bt.1", nodeID: 50, type: .bluetoothA2DP, direction: .output, deviceID: "bt")
    let speaker = Port(uid: "speaker", nodeID: 40, type: .builtInSpeaker, direction: .output)

    static func names(_ events: [BackendEvent]) -> [String] {
        events.map { event in
            switch event {
            case .portAppeared(let port): "appeared \(port.uid)"
            case .portRemoved(let uid): "removed \(uid)"
            case .portLeftWithProfile(let uid): "left with profile \(uid)"
            case .deviceProfileChanged(let device, let profile, let saved): "\(device) profile \(profile)\(saved ? " saved" : "")"
            default: "other"
            }
        }
    }

    @Test func aPortWhoseDeviceStaysLeavesWithItsProfile() {
        var watch = ProfileSwitchWatch()
        watch.attached([a2dp, speaker])
        #expect(Self.names(watch.translate([.portRemoved(uid: a2dp.uid)]) { $0 == "bt" }) == ["left with profile \(a2dp.uid)"])
        // The headset disconnects after all: its port is gone then.
        #expect(Self.names(watch.deviceRemoved(named: "bt")) == ["removed \(a2dp.uid)"])
    }

    @Test func aPortWhoseDeviceWentIsUnplugged() {
        var watch = ProfileSwitchWatch()
        watch.attached([a2dp])
        #expect(Self.names(watch.translate([.portRemoved(uid: a2dp.uid)]) { _ in false }) == ["removed \(a2dp.uid)"])
        #expect(watch.deviceRemoved(named: "bt").isEmpty)
    }

    @Test func aPortReplacedInTheSameChangeIsRemovedPlainly() {
        // A node's routes read after the node: its bare port becomes its route's port at once.
        var watch = ProfileSwitchWatch()
        _ = watch.translate([.portAppeared(bare)]) { _ in true }
        let events = watch.translate([.portAppeared(a2dp), .portRemoved(uid: bare.uid)]) { _ in true }
        #expect(Self.names(events) == ["appeared \(a2dp.uid)", "removed \(bare.uid)"])
    }

    @Test func aPortWithoutDeviceIsUnplugged() {
        var watch = ProfileSwitchWatch()
        watch.attached([speaker])
        #expect(Self.names(watch.translate([.portRemoved(uid: speaker.uid)]) { _ in true }) == ["removed speaker"])
    }

    @Test func aPortThatCameBackIsNoLongerLeaving() {
        var watch = ProfileSwitchWatch()
        watch.attached([a2dp])
        _ = watch.translate([.portRemoved(uid: a2dp.uid)]) { _ in true }
        _ = watch.translate([.portAppeared(a2dp)]) { _ in true }
        #expect(watch.deviceRemoved(named: "bt").isEmpty)
    }
}
