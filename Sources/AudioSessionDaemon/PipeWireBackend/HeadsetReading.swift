import PipeWireGraph
import SessionPolicy

/// A Bluetooth headset's profiles as the policy knows them (``HeadsetProfiles``), read from a
/// bluez5 device's `EnumProfile` and `Profile`, and from its nodes: `a2dp-sink*` is media,
/// `headset-head-unit*` (HFP, and HSP's) is a call.
///
/// The nodes say which profile is active when the `Profile` param disagrees: PipeWire's server
/// caches a device's params, and for a device a session manager exports (bluez5 always is) that
/// cache can keep the old `Profile` after a switch until the next one, for every client (seen on
/// 0.3.65: the HFP nodes there, `Profile` still `a2dp-sink-sbc` for as long as the call ran).
enum HeadsetReading {
    static func isHeadset(_ device: Device) -> Bool {
        device.properties["device.api"] == "bluez5" && !device.profiles.isEmpty
    }

    static func kind(ofProfileNamed name: String) -> HeadsetProfile? {
        if name.hasPrefix("a2dp-sink") { return .media }
        if name.hasPrefix("headset-head-unit") { return .call }
        return nil
    }

    static func profiles(of device: Device, in snapshot: GraphSnapshot) -> HeadsetProfiles? {
        guard isHeadset(device) else { return nil }
        let active = activeProfile(of: device, in: snapshot).flatMap { kind(ofProfileNamed: $0.name) }
        return HeadsetProfiles(
            canCall: device.profiles.contains { kind(ofProfileNamed: $0.name) == .call && $0.available != .no },
            active: active, microphone: active == .call ? nil : microphone(of: device))
    }

    /// The device's active profile: its `Profile` param, unless its nodes (`api.bluez5.profile`,
    /// the newest node's when a switch leaves both kinds for a moment) are of another kind; then
    /// the profile of theirs with their codec, else the best of their kind. A device with no
    /// nodes (switching, or off) has only its param to say.
    static func activeProfile(of device: Device, in snapshot: GraphSnapshot) -> DeviceProfile? {
        let newest = snapshot.nodes.values.filter { $0.deviceID == device.id && $0.properties["api.bluez5.profile"] != nil }.max { $0.id < $1.id }
        guard let node = newest, let profile = node.properties["api.bluez5.profile"], let nodeKind = kind(ofProfileNamed: profile)
        else { return device.activeProfile }
        if let param = device.activeProfile, kind(ofProfileNamed: param.name) == nodeKind { return param }
        let codec = node.properties["api.bluez5.codec"].map { "\(profile)-\($0)" }
        let ofKind = device.profiles.filter { kind(ofProfileNamed: $0.name) == nodeKind }
        return ofKind.first { $0.name == codec } ?? ofKind.first { $0.name == profile }
            ?? ofKind.max { $0.priority < $1.priority }
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
