import SessionPolicy

/// What a backend last told the policy of each device's levels, data sources and profile: it reports
/// only what changed, and when a device goes, takes back what it had said (a microphone that
/// went was muted no more). Server-neutral: each backend reads its server's values into it.
struct DeviceReports {
    private var outputVolumes: [DeviceID: Double] = [:]
    private var inputVolumes: [DeviceID: Double] = [:]
    private var mutedInputs: Set<DeviceID> = []
    private var dataSources: [DeviceID: DeviceDataSources] = [:]
    /// Each card's active profile and its `save`, by `Port.deviceID`.
    private var profiles: [String: ActiveProfile] = [:]

    private struct ActiveProfile: Equatable {
        var name: String
        var saved: Bool
    }

    /// An output's volume as its control shows it (0 while it is muted).
    mutating func output(_ device: DeviceID, volume: Double) -> [BackendEvent] {
        guard outputVolumes[device] != volume else { return [] }
        outputVolumes[device] = volume
        return [.outputVolumeChanged(device, volume)]
    }

    /// An input's volume (nil: not read yet, nothing to say) and mute.
    mutating func input(_ device: DeviceID, volume: Double?, muted: Bool) -> [BackendEvent] {
        var events: [BackendEvent] = []
        if let volume, inputVolumes[device] != volume {
            inputVolumes[device] = volume
            events.append(.inputVolumeChanged(device, volume))
        }
        if muted != mutedInputs.contains(device) {
            if muted { mutedInputs.insert(device) } else { mutedInputs.remove(device) }
            events.append(.inputMuted(device, muted))
        }
        return events
    }

    /// A device's data sources (nil: it has none to choose from).
    mutating func dataSources(_ sources: DeviceDataSources?, of device: DeviceID) -> [BackendEvent] {
        guard dataSources[device] != sources else { return [] }
        dataSources[device] = sources
        return [.dataSourcesChanged(device, sources)]
    }

    /// A card's active profile (a headset's A2DP or HFP, a card's analog or HDMI), and whether
    /// its user saved it as their choice; nil: none read (the card has no profiles, or went).
    mutating func profile(_ name: String?, saved: Bool, ofCard card: String) -> [BackendEvent] {
        let profile = name.map { ActiveProfile(name: $0, saved: saved) }
        guard profiles[card] != profile else { return [] }
        profiles[card] = profile
        return profile.map { [.deviceProfileChanged(device: card, profile: $0.name, saved: $0.saved)] } ?? []
    }

    /// The device went: what was said of it is taken back.
    mutating func removed(_ device: DeviceID) -> [BackendEvent] {
        var events: [BackendEvent] = []
        outputVolumes[device] = nil
        if mutedInputs.remove(device) != nil { events.append(.inputMuted(device, false)) }
        if inputVolumes.removeValue(forKey: device) != nil { events.append(.inputVolumeChanged(device, nil)) }
        if dataSources.removeValue(forKey: device) != nil { events.append(.dataSourcesChanged(device, nil)) }
        return events
    }

    /// A new connection: nothing has been said to it yet.
    mutating func reset() { self = DeviceReports() }
}
