import PolicyRules
import SessionPolicy

/// How a stream is classified and its app composed by the rules in force: the rules, the app
/// composition they give (worked out from them once), and who each stream's process is (read
/// once per process). How the rules were last read is `LiveRules`' record, not kept here.
struct StreamClassifier {
    private(set) var ruleSet: RuleSet
    /// How an app's streams make its classification (what a call is comes from the rules).
    private(set) var composition: AppComposition
    private var appFacts = AppFactsReader()

    init(_ ruleSet: RuleSet) {
        self.ruleSet = ruleSet
        composition = ruleSet.appComposition
    }

    /// New rules; the processes stay known.
    mutating func use(_ fresh: RuleSet) {
        ruleSet = fresh
        composition = fresh.appComposition
    }

    /// Who a stream's process is.
    mutating func processFacts(of stream: BackendStream) -> AppFacts {
        appFacts.facts(for: stream)
    }

    /// What the rules say of a stream alone, and which app it belongs to. An app is what its
    /// process vouches for (its sandbox, its app unit, its program), whatever it claims.
    mutating func classify(_ stream: BackendStream) -> ImplicitSessions.StreamClassificationFacts {
        let facts = appFacts.facts(for: stream)
        let identity = AppIdentity(facts)
        return ImplicitSessions.StreamClassificationFacts(
            classification: ruleSet.classification(of: facts.vouching(stream.properties, as: identity)), identity: identity)
    }

    /// The graph went away: its processes are forgotten.
    mutating func forgetProcesses() {
        appFacts.forgetAll()
    }
}
