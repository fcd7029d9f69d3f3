import SessionPolicy

/// Tells a device switching profile from an unplug. When a Bluetooth headset goes from A2DP to
/// HFP (or a card to HDMI), its old profile's sink or source goes and the new one's comes, while
/// the device stays; only a disconnect removes the device. A port whose node (or route) goes
/// while its device is still in the graph is reported as leaving with its profile
/// (``BackendEvent/portLeftWithProfile(uid:)``), for the policy to wait for its replacement;
/// if the device goes after all, the port is reported gone then. Server-neutral: PipeWire's
/// devices and PulseAudio's cards both switch this way (a server removes the old profile's
/// nodes before the device, or the card, on a disconnect).
///
/// The facts only: how long to wait, and what a switch means for sessions, is the policy's
/// (``ProfileSwitch``).
struct ProfileSwitchWatch {
    /// The device (`device.name`) of every port reported, by uid.
    private var devices: [String: String] = [:]
    /// Ports reported leaving with their device's profile, by device.
    private var leaving: [String: Set<String>] = [:]

    mutating func reset() {
        devices.removeAll()
        leaving.removeAll()
    }

    /// The ports the policy learnt at attach.
    mutating func attached(_ ports: [Port]) {
        reset()
        for port in ports { devices[port.uid] = port.deviceID }
    }

    /// Port events as the policy should hear them: a removal while the port's device is still
    /// there (`deviceExists`) is a profile leaving, unless the same change brought the device a
    /// port (a node's routes read after the node: the new port replaces the old at once).
    mutating func translate(_ events: [BackendEvent], deviceExists: (String) -> Bool) -> [BackendEvent] {
        let replaced = Set(events.compactMap { event -> String? in
            if case .portAppeared(let port) = event { port.deviceID } else { nil }
        })
        return events.map { event in
            switch event {
            case .portAppeared(let port), .portChanged(let port):
                devices[port.uid] = port.deviceID
                if let device = port.deviceID { leaving[device]?.remove(port.uid) }
                return event
            case .portRemoved(let uid):
                guard let device = devices.removeValue(forKey: uid) else { return event }
                guard deviceExists(device), !replaced.contains(device) else { return event }
                leaving[device, default: []].insert(uid)
                return .portLeftWithProfile(uid: uid)
            default:
                return event
            }
        }
    }

    /// The device went (a headset disconnected): the ports that left with its profile are gone.
    mutating func deviceRemoved(named device: String) -> [BackendEvent] {
        (leaving.removeValue(forKey: device) ?? []).sorted().map { .portRemoved(uid: $0) }
    }
}
