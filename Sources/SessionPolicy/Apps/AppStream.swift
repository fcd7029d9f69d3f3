/// One stream of an app, as far as the app's classification is concerned.
public struct AppStream: Hashable, Sendable {
    /// What the rules say of this stream on its own.
    public var classification: Classification
    public var direction: StreamDirection
    /// It runs now (not paused by its user, not stopped, not idle or silent past its grace).
    public var isRunning: Bool
    /// A capture of what plays (a sink's monitor), not of a microphone.
    public var capturesMonitor: Bool
    /// It has run without a stop for longer than a short sound (``AppBehaviour/shortSoundLimit``).
    public var hasPlayedLong: Bool

    public init(
        classification: Classification, direction: StreamDirection, isRunning: Bool, capturesMonitor: Bool = false,
        hasPlayedLong: Bool = false
    ) {
        self.classification = classification
        self.direction = direction
        self.isRunning = isRunning
        self.capturesMonitor = capturesMonitor
        self.hasPlayedLong = hasPlayedLong
    }
}

/// Why an app's session has the classification it has: `status` and `rules explain` say it.
public enum AppClassificationReason: String, Hashable, Sendable, CaseIterable, WireNamed {
    /// The rules' classification of its leading stream.
    case rules
    /// It captures from a microphone while it plays: a call, for as long as both run.
    case call
    /// It captures from a microphone and plays nothing: a recorder.
    case recording
    /// It captures what plays (a sink's monitor): it must not change what it records.
    case monitoring
    /// No rule classifies it, and it played longer than a short sound: media playback.
    case playing

    public var wireName: String { rawValue }

    public var explanation: String {
        switch self {
        case .rules: "the rules' classification of its leading stream"
        case .call: "call: captures from a microphone and plays at once"
        case .recording: "records: captures from a microphone, plays nothing"
        case .monitoring: "captures what plays (a monitor): mixes with everything"
        case .playing: "no rule classifies it and it plays longer than a short sound: media playback"
        }
    }
}

/// An app's classification and why.
public struct AppClassification: Hashable, Sendable {
    public var classification: Classification
    public var reason: AppClassificationReason

    public init(_ classification: Classification, reason: AppClassificationReason) {
        self.classification = classification
        self.reason = reason
    }
}
