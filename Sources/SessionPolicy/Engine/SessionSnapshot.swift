/// What the engine knows about one session, for `audiosessionctl status`, D-Bus
/// properties and tests.
public struct SessionSnapshot: Hashable, Sendable {
    public var id: SessionID
    public var kind: SessionKind
    public var app: String
    /// What the app calls itself (``SessionDescriptor/label``).
    public var label: String = ""
    public var category: Category
    public var mode: Mode
    public var options: CategoryOptions
    public var priorityClass: PriorityClass
    public var activity: SessionActivity
    /// Our gain factor now (1.0 unless ducked).
    public var gain: Double
    public var isSilenced: Bool
    public var isCaptureSilenced: Bool
    public var route: RouteDescription
    public var preferredHardware: HardwareWish
    public var preferredInputUID: String?
    public var outputOverride: OutputOverride
    public var preferences: SessionPreferences
    public var preferredInputChannels: Int?
    public var preferredOutputChannels: Int?
    /// Interrupted (or kept waiting) by a muted microphone.
    public var isHeldByMutedInput: Bool
    /// An app the rules say nothing about, still opening its streams: nothing interrupts it yet
    /// (``PolicyConfiguration/sparesOpeningApps``).
    public var isOpening: Bool = false
    public var streams: [StreamID]
    public var activatedAt: Timestamp?
}

extension PolicyEngine {
    /// Every session, by id.
    public var sessionIDs: [SessionID] { sessionOrder }

    public func snapshot(of id: SessionID) -> SessionSnapshot? {
        guard let state = sessions[id] else { return nil }
        let contender = contenderIndex(of: id).map { contenders[$0] }
        return SessionSnapshot(
            id: id, kind: state.kind, app: state.app, label: state.label, category: state.configuration.category,
            mode: state.configuration.mode, options: state.configuration.options,
            priorityClass: state.priorityClass, activity: state.activity,
            gain: contender.map { $0.isEffective ? gain(forDuckCount: $0.appliedDuckCount) : 1.0 } ?? 1.0,
            isSilenced: state.silenced, isCaptureSilenced: state.captureSilenced, route: state.route,
            preferredHardware: state.wish, preferredInputUID: state.preferredInputUID,
            outputOverride: state.outputOverride, preferences: state.preferences,
            preferredInputChannels: state.preferredInputChannels, preferredOutputChannels: state.preferredOutputChannels,
            isHeldByMutedInput: contender?.heldByMutedInput ?? false, isOpening: state.isOpening, streams: state.streams.map(\.id),
            activatedAt: state.activity == .inactive ? nil : state.activatedAt)
    }

    /// The session's current route: where its streams should be linked now.
    public func route(for id: SessionID) -> RouteDescription? { sessions[id]?.route }

    /// Inputs a session may choose from (`availableInputs`).
    public func availableInputs(for id: SessionID) -> [Port] {
        guard let state = sessions[id] else { return [] }
        return availableInputs(for: state)
    }

    /// The inputs the route selector offers, then the microphones of headsets in another
    /// profile, where the session may record from a Bluetooth headset.
    func availableInputs(for state: SessionState) -> [Port] {
        let offered = offeredHeadsetMicrophones.filter { RouteSelector.isEligibleInput($0, state.configuration) }
        return routeSelector().availableInputs(for: state.configuration) + (state.configuration.category.hasInput ? offered : [])
    }

    /// Ports available now, most recently "in" first.
    public var availablePorts: [Port] { routeSelector().ports }

    /// ``availablePorts``, then the microphones of headsets in another profile (a session with
    /// `allowBluetooth` may choose one; the headset is switched for it).
    public var offeredPorts: [Port] { availablePorts + offeredHeadsetMicrophones }

    /// The route a session with no wishes gets now (last in wins): the system's route, whose
    /// devices the daemon publishes as the defaults.
    public var systemRoute: RouteDescription {
        let ports = availablePorts
        return RouteDescription(
            inputs: ports.first { $0.direction == .input }.map { [$0] } ?? [],
            outputs: ports.first { $0.direction == .output }.map { [$0] } ?? [])
    }

    /// `isOtherAudioPlaying`: any other session plays, mixable or not.
    public func isOtherAudioPlaying(for id: SessionID) -> Bool {
        contenders.contains { $0.isEffective && $0.id != id }
    }

    /// `secondaryAudioShouldBeSilencedHint`: a non-mixable session of another app plays.
    public func secondaryAudioShouldBeSilencedHint(for id: SessionID) -> Bool {
        let app = sessions[id]?.appKey ?? -1
        return contenders.contains { $0.isEffective && $0.isNonMixable && $0.id != id && $0.appKey != app }
    }

    /// The sessions playing now, most dominant first.
    public var playingSessions: [SessionID] { contenders.filter(\.isEffective).map(\.id) }

    /// The sessions interrupted now, most dominant first.
    public var interruptedSessions: [SessionID] { contenders.filter(\.isWaiting).map(\.id) }

    public func recordPermission(for app: String) -> RecordPermission { permissions[app] ?? .undetermined }

    /// Values a session would be told it runs at.
    public func actualHardware() -> HardwareValues {
        let limits = configuration.hardwareLimits
        let rate = observedHardware?.sampleRate ?? hardwareChoice.sampleRate ?? limits.defaultSampleRate
        let quantum = observedHardware?.quantum ?? hardwareChoice.quantum ?? limits.defaultQuantum
        return HardwareArbiter(limits: limits).actualValues(sampleRate: rate, quantum: quantum)
    }
}
