/// A value with a stable spelling on the wire (rules files, D-Bus, CLI).
///
/// Wire names are the lowerCamel Swift spellings of Apple's API (`playAndRecord`,
/// `voiceChat`, `mixWithOthers`), so rules, D-Bus and the CLI all accept exactly
/// the same words.
public protocol WireNamed: Sendable {
    /// The spelling used on the wire.
    var wireName: String { get }
    /// Parses a wire name; `nil` when the name is unknown.
    init?(wireName: String)
}

extension WireNamed where Self: CaseIterable {
    public init?(wireName: String) {
        guard let match = Self.allCases.first(where: { $0.wireName == wireName }) else { return nil }
        self = match
    }
}
