/// The control tower: every decision, no I/O.
///
/// Feed it events with timestamps from your clock; it returns the decisions to carry out,
/// in order. Same configuration and same events give the same decisions.
///
/// Per event the work is linear in the number of *contending* sessions (active or
/// interrupted) with a small constant — a walk over one contiguous array — plus
/// logarithmic index updates; inactive sessions cost nothing except for events that
/// concern every session (silent mode, device changes).
public struct PolicyEngine: Sendable {
    /// The configuration in force: the rules', within what the running graph accepts.
    public internal(set) var configuration: PolicyConfiguration
    /// The configuration the rules gave (``reconfigure(_:at:)``), before the graph's limits.
    private var rulesConfiguration: PolicyConfiguration
    /// What the running graph's clock accepts, once known (``graphAccepts(_:at:)``).
    public private(set) var graphLimits: GraphLimits?

    var sessions = SessionTable()
    /// All session ids, sorted: the deterministic order of "for every session" work.
    var sessionOrder: [SessionID] = []
    /// Active and interrupted sessions, in dominance order.
    var contenders: [Contender] = []
    var streamOwners: [StreamID: SessionID] = [:]
    /// Streams playing on a device they named (``PolicyEvent/streamPinned(_:to:)``).
    var pinnedStreams: [StreamID: DeviceID] = [:]
    var nextSerial: UInt64 = 1
    var appKeys: [String: Int] = [:]
    var appSessions: [String: Set<SessionID>] = [:]
    var permissions: [String: RecordPermission] = [:]
    /// The current media player and the ones before it.
    var nowPlayingHistory = NowPlayingHistory()

    var ports: [PortRecord] = []
    /// Output devices' volumes as their user set them (``PolicyEvent/outputVolumeChanged(_:_:)``).
    var outputVolumes: [DeviceID: Double] = [:]
    /// Input devices' volumes (``PolicyEvent/inputVolumeChanged(_:_:)``); absent: no volume control.
    var inputVolumes: [DeviceID: Double] = [:]
    /// Sessions that set an input gain (an index, so that steps without any cost nothing).
    var inputGainSessions: Set<SessionID> = []
    /// The gain each input device was last put at, by ``updateInputGains()``.
    var appliedInputGains: [DeviceID: Double] = [:]
    /// Devices' data sources (``PolicyEvent/dataSourcesChanged(_:_:)``).
    var deviceDataSources: [DeviceID: DeviceDataSources] = [:]
    /// Sessions that chose a data source (an index, as for input gains).
    var dataSourceSessions: Set<SessionID> = []
    /// The data source each device was last switched to, by ``updateDataSources()``.
    var appliedDataSources: [DeviceID: UInt32] = [:]
    /// Input devices their user muted (``PolicyEvent/inputMuted(_:_:)``).
    var mutedInputs: Set<DeviceID> = []
    /// Explicit sessions interrupted by a muted microphone, waiting for it to come back.
    var micMuteInterrupted: Set<SessionID> = []
    var nextPortSerial: UInt64 = 1
    /// Devices switching profile (``ProfileSwitch``), by `Port.deviceID`.
    var switchingDevices: [String: ProfileSwitch.State] = [:]
    /// The active profile each device last reported, by `Port.deviceID`.
    var reportedProfiles: [String: String] = [:]
    /// Bluetooth headsets by `Port.deviceID` (``HeadsetProfiles``).
    var headsets: [String: HeadsetProfiles] = [:]
    /// What the engine did to headsets for calls (``updateHeadsetProfiles()``).
    var headsetCalls = HeadsetCallState()

    public internal(set) var silentMode = false
    public internal(set) var screenLocked = false
    /// An explicit session records and did not allow system sounds meanwhile: notification
    /// sounds are silenced.
    public internal(set) var alertsSilencedByRecording = false
    public internal(set) var isAsleep = false
    public internal(set) var isGraphLost = false
    /// Last choice sent to the graph.
    public internal(set) var hardwareChoice = HardwareChoice.systemDefault
    /// What the graph's running clock was last seen at; nil while nothing runs (or before it
    /// was seen), when ``actualHardware()`` falls back to the choice and the defaults.
    public internal(set) var observedHardware: (sampleRate: Int, quantum: Int)?
    /// Time of the event being handled (or last handled).
    public internal(set) var now = Timestamp.zero

    /// Decisions of the event being handled.
    var output: [PolicyDecision] = []
    /// Reused by every walk, so a walk allocates nothing in the steady state.
    var walkScratch: [WalkChange] = []
    /// How many contenders are explicit sessions (hints are only for them).
    var explicitContenders = 0
    /// Sessions of the notification class: the ones a recording silences.
    var systemAlertSessions: Set<SessionID> = []
    /// How many contenders silence notification sounds (``Contender/silencesAlerts``).
    var alertSilencingContenders = 0
    /// How many contenders are interrupted and waiting (re-judged by every walk).
    var waitingContenders = 0

    public init(configuration: PolicyConfiguration = .desktop) {
        self.configuration = configuration
        rulesConfiguration = configuration
    }

    /// Handles one event and returns what to do, in order.
    public mutating func handle(_ event: PolicyEvent, at time: Timestamp) -> [PolicyDecision] {
        now = time
        output.removeAll(keepingCapacity: true)
        switch event {
        case .sessionCreated(let id, let descriptor): createSession(id, descriptor)
        case .sessionRemoved(let id): removeSession(id)
        case .setCategory(let id, let category, let mode, let options): setCategory(id, category, mode, options)
        case .reclassify(let id, let classification): reclassify(id, classification)
        case .openingEnded(let id): endOpening(id)
        case .setActive(let id, let active, let options): setActive(id, active, options)
        case .setPreferredHardware(let id, let wish): setPreferredHardware(id, wish)
        case .setPreferredInput(let id, let uid): setPreferredInput(id, uid)
        case .overrideOutputAudioPort(let id, let override): overrideOutput(id, override)
        case .setPreferences(let id, let preferences): setPreferences(id, preferences)
        case .setPreferredChannels(let id, let direction, let count): setPreferredChannels(id, direction, count)
        case .capabilitiesChanged(let id, let capabilities): changeCapabilities(id, capabilities)
        case .interruptionMethodFailed(let id, let method): interruptionMethodFailed(id, method)
        case .streamStarted(let id, let stream): startStream(id, stream)
        case .streamPausedByUser(let stream): pauseStream(stream)
        case .streamStopped(let stream): stopStream(stream)
        case .streamPinned(let stream, let device): pinnedStreams[stream] = device
        case .devicesEnumerated(let ports, let output, let input): enumerateDevices(ports, defaultOutput: output, defaultInput: input)
        case .deviceAdded(let port): addDevice(port)
        case .deviceRemoved(let uid): removeDevice(uid)
        case .deviceSwitchingProfile(let uid): beginProfileSwitch(uid)
        case .profileSwitchEnded(let device, let number): endProfileSwitch(device, switch: number)
        case .deviceProfileReported(let device, let profile, let saved): reportProfile(device, profile, saved: saved)
        case .headsetProfilesChanged(let device, let profiles): changeHeadsetProfiles(device, profiles)
        case .headsetRecheckDue: headsetRecheckDue()
        case .headsetsSwitchedElsewhere(let elsewhere): headsetCalls.switchedElsewhere = elsewhere
        case .portAvailabilityChanged(let uid, let available): changeAvailability(uid, available)
        case .portChanged(let port): changePort(port)
        case .defaultDeviceChanged(let direction, let uid): changeDefault(direction, uid)
        case .inputMuted(let device, let muted): changeInputMute(device, muted)
        case .outputVolumeChanged(let device, let volume): changeOutputVolume(device, volume)
        case .inputVolumeChanged(let device, let volume): changeInputVolume(device, volume)
        case .setInputGain(let id, let gain): setInputGain(id, gain)
        case .setDataSource(let id, let direction, let source): setDataSource(id, direction, source)
        case .dataSourcesChanged(let device, let sources): changeDataSources(device, sources)
        case .silentMode(let on): silentMode = on; updateSilencing()
        case .screenLocked(let on): screenLocked = on; updateSilencing()
        case .sleep: isAsleep = true
        case .wake: wake()
        case .recordPermissionChanged(let app, let permission): changePermission(app, permission)
        case .hardwareObserved(let rate, let quantum): observeHardware(rate, quantum)
        case .hardwareIdle: observeIdleHardware()
        case .graphLost: loseGraph()
        case .graphRestored: restoreGraph()
        }
        finishStep()
        return output
    }

    /// Replaces the rules' configuration (a rules reload) and re-derives every session's effects.
    /// What the graph accepts still narrows it.
    public mutating func reconfigure(_ configuration: PolicyConfiguration, at time: Timestamp) -> [PolicyDecision] {
        rulesConfiguration = configuration
        return apply(inForce(configuration), at: time)
    }

    /// What the running graph's clock accepts (its rates and quantum range) became known or
    /// changed: the rules' hardware limits are narrowed to it (always the rules', so a graph that
    /// later accepts more gets the rules' defaults back). Nil when the limits in force stay.
    public mutating func graphAccepts(_ limits: GraphLimits, at time: Timestamp) -> [PolicyDecision]? {
        graphLimits = limits
        let fresh = inForce(rulesConfiguration)
        guard fresh.hardwareLimits != configuration.hardwareLimits else { return nil }
        return apply(fresh, at: time)
    }

    private func inForce(_ rules: PolicyConfiguration) -> PolicyConfiguration {
        guard let graphLimits else { return rules }
        return rules.accepting(sampleRates: graphLimits.sampleRates, quantumRange: graphLimits.quantumRange)
    }

    private mutating func apply(_ configuration: PolicyConfiguration, at time: Timestamp) -> [PolicyDecision] {
        now = time
        output.removeAll(keepingCapacity: true)
        self.configuration = configuration
        for id in sessionOrder {
            update(id) { $0.interruptionMethod = $0.method(preferring: configuration.interruptionMethods) }
        }
        for id in contenders.map(\.id) { refreshContender(id) }
        updateSilencing()
        arbitrate(cause: nil)
        finishStep()
        return output
    }

    /// After every event and reconfiguration: what follows from the state the step left
    /// (each costs nothing unless its inputs are in play).
    mutating func finishStep() {
        updateHeadsetProfiles()  // first: a headset back from a call lets interruptions end
        updateMicrophoneMuteInterruptions()
        updateNowPlaying()
        updateAlertSilencing()
        updateInputGains()
        updateDataSources()
    }

    // MARK: - Shared helpers

    func effects(of state: SessionState) -> Contender.Effects {
        Contender.Effects(
            configuration: state.configuration, priorityClass: state.priorityClass,
            interaction: state.interaction, rule: configuration.equalClassRule)
    }

    mutating func appKey(for app: String) -> Int {
        if let key = appKeys[app] { return key }
        let key = appKeys.count
        appKeys[app] = key
        return key
    }

    mutating func emit(_ decision: PolicyDecision) { output.append(decision) }

    /// Refuses a request about a session we do not know (removed or never created).
    mutating func existing(_ id: SessionID) -> Bool {
        if sessions.index(forKey: id) != nil { return true }
        emit(.failed(id, .expiredSession))
        return false
    }

    /// Gain for a number of simultaneous duckers: like PulseAudio's groups they multiply.
    /// Zero duckers is exactly 1.0.
    /// Ducked once, however many duck it: two speech streams (or a notification during a
    /// prompt) must not push the music below the duck level.
    func gain(forDuckCount count: Int32) -> Double {
        count > 0 ? configuration.duckLevel : 1.0
    }
}
