/// A headset's microphone while the headset plays music (A2DP, no microphone): iOS lists an
/// HFP headset's microphone among `availableInputs` all the same, and a session that chooses it
/// (`setPreferredInput`) gets the headset switched to its call profile. Until the switch is
/// done the session records from the input it had; then from the headset, whose real port
/// takes the offered one's place.
extension PolicyEngine {
    /// Microphones of headsets not in their call profile, offered to sessions that may record
    /// from a Bluetooth headset (``HeadsetProfiles/microphone``).
    var offeredHeadsetMicrophones: [Port] {
        headsets.keys.sorted().compactMap { device in
            guard let microphone = headsets[device]?.microphone, realHeadsetMicrophone(of: device) == nil else { return nil }
            return microphone
        }
    }

    /// The headset's microphone as a port of its call profile, once that profile is active.
    func realHeadsetMicrophone(of device: String) -> Port? {
        ports.first { $0.available && $0.port.deviceID == device && $0.port.direction == .input && $0.port.type == .bluetoothHFP }?.port
    }

    /// The offered microphone with this uid, if it is one.
    func offeredHeadsetMicrophone(uid: String) -> Port? {
        headsets.values.lazy.compactMap(\.microphone).first { $0.uid == uid }
    }

    /// The headset whose microphone a session prefers: an offered one, or its real port.
    func preferredHeadset(of state: SessionState) -> String? {
        guard let uid = state.preferredInputUID else { return nil }
        if let offered = offeredHeadsetMicrophone(uid: uid) { return offered.deviceID }
        return ports.first { $0.port.uid == uid && $0.port.type == .bluetoothHFP }?.port.deviceID
    }

    /// The preferred input as the route selector knows it: an offered microphone is its
    /// headset's real one once the call profile brought it, and nothing meanwhile.
    func resolvedPreferredInput(of state: SessionState) -> String? {
        guard let uid = state.preferredInputUID else { return nil }
        guard let offered = offeredHeadsetMicrophone(uid: uid), let device = offered.deviceID
        else { return uid }
        return realHeadsetMicrophone(of: device)?.uid
    }

    /// Headsets whose microphone an active session that records prefers: they are switched to
    /// their call profile, whether or not they are the output their user has now.
    var headsetsChosenForTheirMicrophone: Set<String> {
        var devices: Set<String> = []
        for contender in contenders {
            guard let state = sessions[contender.id], state.activity == .active, state.configuration.category.hasInput,
                let device = preferredHeadset(of: state)
            else { continue }
            devices.insert(device)
        }
        return devices
    }
}
