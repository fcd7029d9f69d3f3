/// An audio session mode (reference §2): a specialisation of a category.
public enum Mode: String, CaseIterable, Hashable, Sendable, WireNamed {
    case `default`
    case voiceChat
    case gameChat
    case videoRecording
    case measurement
    case moviePlayback
    case videoChat
    case spokenAudio
    case voicePrompt

    public var wireName: String { rawValue }

    /// Categories this mode is documented for. Elsewhere the mode behaves as `default`
    /// (not an error, per Apple's guide).
    public var compatibleCategories: Set<Category> {
        switch self {
        case .default: Set(Category.allCases)
        case .voiceChat, .gameChat, .videoChat: [.playAndRecord]
        case .videoRecording: [.playAndRecord, .record]
        case .measurement: [.playAndRecord, .record, .playback]
        case .moviePlayback, .spokenAudio, .voicePrompt: [.playback]
        }
    }

    public func isCompatible(with category: Category) -> Bool {
        compatibleCategories.contains(category)
    }

    /// Options a (compatible) mode switches on by itself: voiceChat needs Bluetooth HFP;
    /// videoChat and gameChat route like a video call (HFP + speaker).
    public var impliedOptions: CategoryOptions {
        switch self {
        case .voiceChat: [.allowBluetooth]
        case .videoChat, .gameChat: [.allowBluetooth, .defaultToSpeaker]
        default: []
        }
    }
}
