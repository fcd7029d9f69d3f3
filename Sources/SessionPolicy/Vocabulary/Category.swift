/// An audio session category (reference §1): what kind of audio a session makes and
/// how it behaves toward other sessions.
public enum Category: String, CaseIterable, Hashable, Sendable, WireNamed {
    case ambient
    /// The default category of a session nobody configured.
    case soloAmbient
    case playback
    case record
    case playAndRecord
    case multiRoute
    /// Deprecated by Apple: accepted and reported as deprecated.
    case audioProcessing

    public var wireName: String { rawValue }

    /// Apple's constant name (`AVAudioSessionCategoryPlayAndRecord`), for logs and docs.
    public var appleName: String {
        "AVAudioSessionCategory" + rawValue.prefix(1).uppercased() + rawValue.dropFirst()
    }

    /// Silenced by silent mode and screen lock (ambient and soloAmbient only).
    public var isSilencedBySilentModeByDefault: Bool { self == .ambient || self == .soloAmbient }

    /// Whether the category produces output at all.
    public var hasOutput: Bool {
        switch self {
        case .ambient, .soloAmbient, .playback, .playAndRecord, .multiRoute: true
        case .record, .audioProcessing: false
        }
    }

    /// Whether the category may capture.
    public var hasInput: Bool {
        switch self {
        case .record, .playAndRecord, .multiRoute: true
        case .ambient, .soloAmbient, .playback, .audioProcessing: false
        }
    }

    /// Apple deprecated `audioProcessing`; we accept it and say so.
    public var isDeprecated: Bool { self == .audioProcessing }

    /// The options this category accepts (reference §3); anything else is `badParam`.
    public var acceptedOptions: CategoryOptions {
        switch self {
        case .ambient: [.duckOthers]
        case .soloAmbient, .audioProcessing: []
        case .playback: [.mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers]
        case .record: [.allowBluetooth]
        case .playAndRecord:
            [.mixWithOthers, .duckOthers, .allowBluetooth, .defaultToSpeaker,
             .interruptSpokenAudioAndMixWithOthers, .allowBluetoothA2DP, .allowAirPlay,
             .overrideMutedMicrophoneInterruption]
        case .multiRoute:
            [.mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers,
             .overrideMutedMicrophoneInterruption]
        }
    }

    /// Ambient always mixes, whatever its options say.
    public var alwaysMixes: Bool { self == .ambient }
}
