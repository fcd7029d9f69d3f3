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
        let active = device.activeProfile.flatMap { kind(ofProfileNamed: $0.name) }
        return HeadsetProfiles(
            canCall: device.profiles.contains { kind(ofProfileNamed: $0.name) == .call && $0.available != .no },
            active: active, microphone: active == .call ? nil : microphone(of: device))
    }

    /// The microphone the device's call profile brings: its `EnumRoute` input route of that
    /// profile (bluez5 lists every profile's routes), as a port with no node yet. Its uid names
    /// the device and the route: the node that will carry it does not exist yet.
    static func microphone(of device: Device) -> SessionPolicy.Port? {
        let calls = Set(device.profiles.filter { kind(ofProfileNamed: $0.name) == .call && $0.available != .no }.map(\.index))
        guard let route = device.enumRoutes.first(where: { $0.direction == .input && !calls.isDisjoint(with: $0.profiles) && $0.available != .no })
        else { return nil }
        return SessionPolicy.Port(
            uid: "\(device.name):\(route.name)", nodeID: 0, name: route.description.isEmpty ? route.name : route.description,
            type: .bluetoothHFP, direction: .input, channels: 1, deviceID: device.name)
    }

    /// The device's best available profile of this kind (the highest priority), by index.
    static func bestProfile(_ kind: HeadsetProfile, of device: Device) -> Int? {
        device.profiles.filter { self.kind(ofProfileNamed: $0.name) == kind && $0.available != .no }
            .max { $0.priority < $1.priority }?.index
    }
}
