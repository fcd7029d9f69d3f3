import PolicyRules

/// Why the daemon cannot start: said in one line, with the exit status a service manager shows.
public enum DaemonStartFailure: Error, CustomStringConvertible {
    /// The policy rules do not load (a daemon never runs without a valid set).
    case invalidRules(RulesError)
    /// The chosen server's client library is not there (libpulse, which is loaded at run time).
    case serverLibraryMissing(String)

    public var description: String {
        switch self {
        case .invalidRules(let error): "the policy rules are invalid:\n\(error)"
        case .serverLibraryMissing(let problem): problem
        }
    }

    /// sysexits(3): EX_CONFIG for rules, EX_UNAVAILABLE for a missing library.
    public var exitStatus: Int32 {
        switch self {
        case .invalidRules: 2
        case .serverLibraryMissing: 69
        }
    }
}
