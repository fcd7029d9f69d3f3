/// What an active session does to another one it outranks (or, between equals, to the
/// older one). Ordered: `mix < duck < interrupt`, so combined effects take the maximum.
public enum Interaction: Int, CaseIterable, Comparable, Hashable, Sendable, WireNamed {
    /// Both play, untouched.
    case mix = 0
    /// The other plays at the duck level.
    case duck = 1
    /// The other is interrupted (paused, unlinked or muted) until this one ends.
    case interrupt = 2

    public var wireName: String {
        switch self {
        case .mix: "mix"
        case .duck: "duck"
        case .interrupt: "interrupt"
        }
    }

    /// WirePlumber's word for interrupt is `cork`; rules files may use either.
    public init?(wireName: String) {
        switch wireName {
        case "mix": self = .mix
        case "duck": self = .duck
        case "interrupt", "cork": self = .interrupt
        default: return nil
        }
    }

    public static func < (lhs: Interaction, rhs: Interaction) -> Bool { lhs.rawValue < rhs.rawValue }
}
