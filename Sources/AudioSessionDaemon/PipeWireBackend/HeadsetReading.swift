import PipeWireGraph
import SessionPolicy

/// A Bluetooth headset's profiles as the policy knows them (``HeadsetProfiles``), read from a
/// bluez5 device's `EnumProfile` and `Profile`: `a2dp-sink*` is media, `headset-head-unit*`
/// (HFP, and HSP's) is a call.
enum HeadsetReading {
    static func isHeadset(_ device: Device) -> Bool {
        device.properties["device.api"] == "bluez5" && !device.profiles.isEmpty
    }

    static func kind(ofProfileNamed name: String) -> HeadsetProfile? {
        if name.hasPrefix("a2dp-sink") { return .media }
        if name.hasPrefix("headset-head-unit") { return .call }
        return nil
    }

    static func profiles(of device: Device) -> HeadsetProfiles? {
        guard isHeadset(device) else { return nil }
        return HeadsetProfiles(
            canCall: device.profiles.contains { kind(ofProfileNamed: $0.name) == .call && $0.available != .no },
            active: device.activeProfile.flatMap { kind(ofProfileNamed: $0.name) })
    }

    /// The device's best available profile of this kind (the highest priority), by index.
    static func bestProfile(_ kind: HeadsetProfile, of device: Device) -> Int? {
        device.profiles.filter { self.kind(ofProfileNamed: $0.name) == kind && $0.available != .no }
            .max { $0.priority < $1.priority }?.index
    }
}
