/// `inputGain`, `isInputGainSettable` and `setInputGain` (reference §7): the volume of the input
/// device a session records from, 0…1 as the user's volume control shows it.
///
/// A gain a session sets is its wish, kept with it; it is carried out only while the session is
/// active in a category with input, on the first input of its route, and only on a device with a
/// volume control. When several active sessions record from one device with a wish, the
/// non-mixable one wins, then the most recently activated (as for the hardware preferences).
/// When none does any more the device gets its user's volume back (``PolicyDecision/applyInputGain(_:_:)``
/// with nil): a gain never outlives the session that asked for it.
extension PolicyEngine {
    /// An input device's volume as its volume control shows it (nil: it has none, or is gone).
    /// Explicit sessions recording from it hear of a change (`inputGain` is observable).
    mutating func changeInputVolume(_ device: DeviceID, _ volume: Double?) {
        let volume = volume.map { min(max($0, 0), 1) }
        guard inputVolumes[device] != volume else { return }
        inputVolumes[device] = volume
        // A scan, but input volume changes are rare (the user's, or one per applied wish).
        for id in sessionOrder {
            guard let state = sessions[id], state.kind == .explicit, state.configuration.category.hasInput,
                state.route.inputs.first?.device == device
            else { continue }
            emit(.inputGainChanged(id, volume ?? 1))
        }
    }

    mutating func setInputGain(_ id: SessionID, _ gain: Double) {
        guard existing(id), let state = sessions[id] else { return }
        guard state.configuration.category.hasInput else {
            emit(.failed(id, .incompatibleCategory))
            return
        }
        guard gain.isFinite, (0...1).contains(gain) else {
            emit(.failed(id, .badParam))
            return
        }
        guard isInputGainSettable(for: id) else {
            emit(.failed(id, .resourceNotAvailable))
            return
        }
        update(id) { $0.inputGain = gain }
        inputGainSessions.insert(id)
    }

    /// The session records from a device with a volume control.
    public func isInputGainSettable(for id: SessionID) -> Bool {
        guard let state = sessions[id], state.configuration.category.hasInput,
            let device = state.route.inputs.first?.device
        else { return false }
        return inputVolumes[device] != nil
    }

    /// The volume of the session's input device (1 when it has none to report, as a device
    /// without a volume control passes its audio unchanged).
    public func inputGain(for id: SessionID) -> Double {
        guard let state = sessions[id], state.configuration.category.hasInput,
            let device = state.route.inputs.first?.device
        else { return 1 }
        return inputVolumes[device] ?? 1
    }

    /// The gain each input device should have now, from the active sessions' wishes; applied and
    /// released when that changes. Costs nothing while no session has a wish and nothing is applied.
    mutating func updateInputGains() {
        guard !inputGainSessions.isEmpty || !appliedInputGains.isEmpty else { return }
        var choice = DeviceSettingChoice<Double>()
        for id in inputGainSessions.sorted() {
            guard let state = sessions[id], let gain = state.inputGain else {
                inputGainSessions.remove(id)
                continue
            }
            guard state.activity == .active, state.configuration.category.hasInput,
                let device = state.route.inputs.first?.device, inputVolumes[device] != nil
            else { continue }
            choice.offer(gain, for: device, by: state)
        }
        for change in choice.changes(applied: &appliedInputGains) { emit(.applyInputGain(change.device, change.value)) }
    }
}
