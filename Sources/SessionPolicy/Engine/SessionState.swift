/// Where a session stands in arbitration.
public enum SessionActivity: String, Hashable, Sendable, CaseIterable, WireNamed {
    /// Not playing, not waiting for anything.
    case inactive
    /// Granted: plays (possibly ducked or silenced).
    case active
    /// Interrupted (or held on arrival: "delayed focus"), waiting for its interrupters to end.
    case interrupted
    public var wireName: String { rawValue }
}

/// One stream of a session.
struct StreamState: Hashable, Sendable {
    var id: StreamID
    var pausedByUser: Bool
    var direction: StreamDirection { id.direction }
}

/// Everything the engine keeps about one session.
struct SessionState: Sendable {
    let id: SessionID
    let kind: SessionKind
    let app: String
    /// What the app calls itself (``SessionDescriptor/label``).
    let label: String
    let appKey: Int
    var configuration: SessionConfiguration
    var priorityClass: PriorityClass
    var interaction: Interaction
    var capabilities: Set<InterruptionMethod>
    /// The first method of the configured order it supports (kept with capabilities).
    var interruptionMethod: InterruptionMethod = .unlink
    /// Its app's record permission (kept with the permission store).
    var recordPermission: RecordPermission = .undetermined
    var activity: SessionActivity = .inactive
    /// Activation order (higher = more recent); meaningful while active or interrupted.
    var serial: UInt64 = 0
    var activatedAt: Timestamp?
    /// Few per session: an array keeps iteration order deterministic.
    var streams: [StreamState] = []
    var wish = HardwareWish()
    var preferredInputUID: String?
    var outputOverride: OutputOverride = .none
    var preferences = SessionPreferences.default
    var preferredInputChannels: Int?
    var preferredOutputChannels: Int?
    /// `setInputGain`: carried out while it is active (``PolicyEngine/updateInputGains()``).
    var inputGain: Double?
    /// `setInputDataSource` / `setOutputDataSource`, by device (``PolicyEngine/updateDataSources()``).
    var preferredDataSources: [DeviceID: UInt32] = [:]
    /// Cleared when its interrupter ends without `notifyOthersOnDeactivation`.
    var resumeHint = true
    /// Its user paused it while it was interrupted: it is not resumed.
    var userPausedWhileInterrupted = false
    var silenced = false
    var captureSilenced = false
    /// An app the rules say nothing about, whose streams are still arriving
    /// (``PolicyConfiguration/sparesOpeningApps``): nothing interrupts it until it has shown
    /// what it is (``PolicyEvent/openingEnded(_:)``) or a rule classifies it.
    var isOpening = false
    /// The route last computed (and reported) for it.
    var route = RouteDescription.empty

    var hasRunningStreams: Bool { streams.contains { !$0.pausedByUser } }
    var hasRunningCapture: Bool { streams.contains { !$0.pausedByUser && $0.direction == .capture } }
    /// It records and plays nothing: the `record` category, or streams that all capture.
    var isRecorder: Bool {
        configuration.category == .record || (!streams.isEmpty && streams.allSatisfy { $0.direction == .capture })
    }
    var isNonMixable: Bool { !configuration.isMixable }
    var isSpoken: Bool { configuration.effectiveMode == .spokenAudio }
    /// What others' effects see of it (``Contender/audience``).
    var audience: Int {
        (isNonMixable ? 1 : 0) | (isSpoken ? 2 : 0) | (preferences.prefersNoInterruptionsFromSystemAlerts ? 4 : 0)
    }
    var isSystemAlert: Bool { priorityClass.isSystemAlert }
    /// An explicit session in a category with input that did not allow system sounds: while it
    /// contends (active, or interrupted and about to record again) notification sounds are
    /// silenced. Its capture may not have started yet — the app has said it is about to record.
    var silencesAlerts: Bool {
        kind == .explicit && configuration.category.hasInput && !preferences.allowsSystemSoundsDuringRecording
    }

    /// The first interruption method of the configured order the session supports.
    /// The method a fallback replaced for the running interruption
    /// (``PolicyEvent/interruptionMethodFailed(_:_:)``): it is the method again once that ends.
    var fallbackFrom: InterruptionMethod?

    mutating func endFallback() {
        guard let original = fallbackFrom else { return }
        interruptionMethod = original
        fallbackFrom = nil
    }

    func method(preferring order: [InterruptionMethod]) -> InterruptionMethod {
        order.first(where: capabilities.contains) ?? (kind == .explicit ? .sessionAPI : .unlink)
    }
}
