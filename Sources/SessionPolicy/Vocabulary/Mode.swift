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
    public var compatibleCategories: Set<Category> { Set(Category.allCases.filter(isCompatible(with:))) }

    /// A switch, not a set lookup: this sits on the engine's hot path.
    public func isCompatible(with category: Category) -> Bool {
        switch self {
        case .default: true
        case .voiceChat, .gameChat, .videoChat: category == .playAndRecord
        case .videoRecording: category == .playAndRecord || category == .record
        case .measurement: category == .playAndRecord || category == .record || category == .playback
        case .moviePlayback, .spokenAudio, .voicePrompt: category == .playback
        }
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
