/// `outputVolume` (reference §7): the user's volume of the device a session plays on, read-only
/// — the user's volume governs and the daemon never writes it. 0…1 as the user's volume control
/// shows it (cubic, like PulseAudio's and WirePlumber's sliders); 0 while the device is muted.
extension PolicyEngine {
    /// The device's volume changed: every explicit session playing on it hears it.
    mutating func changeOutputVolume(_ device: DeviceID, _ volume: Double) {
        let volume = min(max(volume, 0), 1)
        guard outputVolumes[device] != volume else { return }
        outputVolumes[device] = volume
        // A scan, but volume changes are the user's: rare.
        for id in sessionOrder {
            guard let state = sessions[id], state.kind == .explicit, state.route.outputs.first?.device == device else { continue }
            emit(.outputVolumeChanged(id, volume))
        }
    }

    /// The volume of the session's output (its route's first output device); 1 when the device
    /// reports none, 0 when the session has no output.
    public func outputVolume(for id: SessionID) -> Double {
        guard let device = sessions[id]?.route.outputs.first?.device else { return 0 }
        return outputVolumes[device] ?? 1
    }
}
