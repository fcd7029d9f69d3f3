import Synchronization

/// The rule set a running daemon uses, swapped whole on reload: a reload that fails
/// keeps the previous set and remembers why (for the log and `audiosessionctl status`).
public final class LiveRules: Sendable {
    public struct State: Sendable {
        public var ruleSet: RuleSet
        /// How the rules were last read: the one record of it, which `status` shows.
        public var reading: Reading
    }

    /// How the rules were last read: a user who edits a rules file or sends SIGHUP sees whether
    /// the edit took, and why not.
    public struct Reading: Sendable {
        public enum Outcome: String, Sendable {
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
        public var reads: UInt64 = 1
        /// What made the last read: `start`, `SIGHUP`, `a rules file changed`.
        public var reason = "start"
        public var outcome = Outcome.loaded
        /// Why the last read failed (its files and lines); nil when it did not.
        public var error: RulesError?
    }

    /// Where the rules come from (`loader.locations.directories` is what to watch).
    public let loader: RuleSetLoader
    private let state: Mutex<State>
    private let reloading = Mutex(())

    /// Loads the initial set; a daemon must not start without a valid one.
    public init(loader: RuleSetLoader) throws(RulesError) {
        self.loader = loader
        self.state = Mutex(State(ruleSet: try loader.load(), reading: Reading()))
    }

    public var current: State { state.withLock { $0 } }
    public var ruleSet: RuleSet { state.withLock { $0.ruleSet } }

    /// Re-reads every file because of `reason`. Success swaps the set in; failure leaves it.
    /// Either way ``State/reading`` says how it went; the state after it is returned. Reloads
    /// are serialised (a SIGHUP and a file change at once), so a slower, older read can never
    /// replace a newer one; readers of `current` are never blocked by a load.
    @discardableResult
    public func reload(because reason: String = "reload") -> State {
        reloading.withLock { _ in
            let outcome: Result<RuleSet, RulesError>
            do throws(RulesError) {
                outcome = .success(try loader.load())
            } catch {
                outcome = .failure(error)
            }
            return state.withLock { state in
                var reading = Reading(reads: state.reading.reads + 1, reason: reason)
                switch outcome {
                case .success(let fresh) where fresh == state.ruleSet:
                    reading.outcome = .unchanged
                case .success(let fresh):
                    reading.outcome = .reloaded
                    state.ruleSet = fresh
                case .failure(let error):
                    reading.outcome = .failed
                    reading.error = error
                }
                state.reading = reading
                return state
            }
        }
    }
}
