/// `AVAudioSession.PromptStyle`: what kind of spoken prompt a navigation or workout app
/// should play now, from what else is going on (Apple's four-character values).
public enum PromptStyle: UInt32, CaseIterable, Hashable, Sendable, WireNamed {
    /// No prompts: something records (a voice memo, a dictation), and a prompt would be in it.
    case none = 1_852_796_517  // 'none'
    /// Short, non-verbal prompts: the user is in a call.
    case short = 1_936_224_884  // 'shrt'
    /// Full spoken prompts.
    case normal = 1_852_992_876  // 'nrml'

    public var wireName: String {
        switch self {
        case .none: "none"
        case .short: "short"
        case .normal: "normal"
        }
    }
}
