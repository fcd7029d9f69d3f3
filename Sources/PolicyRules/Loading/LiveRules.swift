import Synchronization

/// The rule set a running daemon uses, swapped whole on reload: a reload that fails
/// keeps the previous set and remembers why (for the log and `audiosessionctl status`).
public final class LiveRules: Sendable {
    public struct State: Sendable {
        public var ruleSet: RuleSet
        /// The problems of the last failed reload; `nil` after a successful one.
        public var lastError: RulesError?
        /// Counts successful loads (1 after `init`), so callers can tell a swap happened.
        public var generation: Int
    }

    /// Where the rules come from (`loader.locations.directories` is what to watch).
    public let loader: RuleSetLoader
    private let state: Mutex<State>
    private let reloading = Mutex(())

    /// Loads the initial set; a daemon must not start without a valid one.
    public init(loader: RuleSetLoader) throws(RulesError) {
        self.loader = loader
        self.state = Mutex(State(ruleSet: try loader.load(), lastError: nil, generation: 1))
    }

    public var current: State { state.withLock { $0 } }
    public var ruleSet: RuleSet { state.withLock { $0.ruleSet } }

    /// Re-reads every file. Success swaps the set in; failure leaves it and records why.
    /// Reloads are serialised (a SIGHUP and a file change at once), so a slower, older read
    /// can never replace a newer one; readers of `current` are never blocked by a load.
    @discardableResult
    public func reload() -> Result<RuleSet, RulesError> {
        reloading.withLock { _ in
            do throws(RulesError) {
                let fresh = try loader.load()
                state.withLock {
                    $0.ruleSet = fresh
                    $0.lastError = nil
                    $0.generation += 1
                }
                return .success(fresh)
            } catch {
                state.withLock { $0.lastError = error }
                return .failure(error)
            }
        }
    }
}
