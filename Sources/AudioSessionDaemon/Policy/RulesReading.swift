/// How the policy rules were last read, for `status` and the manager's `Rules` property: a
/// user who edits a rules file or sends SIGHUP sees whether the edit took, and why not.
struct RulesReading: Equatable, Sendable {
    enum Outcome: String, Sendable {
        /// Read at start.
        case loaded
        /// A changed, valid set is in force now.
        case reloaded
        /// Read again, the same rules.
        case unchanged
        /// Invalid: the previous rules stay.
        case failed
    }

    /// How many times the rules were read since start (1: only at start).
    var reads: UInt64 = 1
    /// What made the last read: `start`, `SIGHUP`, `a rules file changed`.
    var reason = "start"
    var outcome = Outcome.loaded
    /// Why the last read failed (its file and line); empty when it did not.
    var error = ""

    /// The next read.
    func next(because reason: String, _ outcome: Outcome, error: String = "") -> RulesReading {
        RulesReading(reads: reads + 1, reason: reason, outcome: outcome, error: error)
    }
}

/// Why rules could not be read: the loader's report (file, line, what is wrong).
struct RulesReadFailure: Error, Equatable, Sendable {
    var description: String
}
