import PropertyBased
import Testing
@testable import SessionPolicy
#if canImport(Glibc)
import Glibc
#endif

/// Invariants over thousands of random event sequences, checked after every event.
@Suite struct PropertyTests {
    /// Sequences per profile; `POLICY_PROPERTY_COUNT=20000` for a longer hunt.
    static let count: Int = getenv("POLICY_PROPERTY_COUNT").flatMap { Int(String(cString: $0)) } ?? 1500

    static let scenarios = zip(
        Gen.int(in: 0...100_000).array(of: RandomScenario.sessionCount),
        Gen.int(in: 0...1_000_000).array(of: 5...60))

    @Test(arguments: [PolicyProfile.desktop, .strict])
    func invariantsHoldAfterEveryEvent(_ profile: PolicyProfile) async {
        let configuration = PolicyConfiguration.for(profile)
        await propertyCheck(count: Self.count, input: Self.scenarios) { sessions, steps in
            var engine = PolicyEngine(configuration: configuration)
            var daemon = DaemonView()
            let oracle = ArbitrationOracle(configuration: configuration)
            var clock: UInt64 = 0
            var opening = OpeningApps(configuration: configuration)
            for event in RandomScenario.events(sessions: sessions, steps: steps) {
                clock += 1_000
                if case .sessionRemoved(let id) = event { daemon.forget(id) }
                daemon.apply(engine.handle(event, at: Timestamp(nanoseconds: clock)))
                opening.apply(event)
                // Which apps are still opening (and so spared), told apart from the events alone.
                let engineOpening = Set(engine.sessionIDs.filter { engine.snapshot(of: $0)?.isOpening == true })
                if engineOpening != opening.sessions {
                    Issue.record("opening: engine \(engineOpening.sorted()), expected \(opening.sessions.sorted()) (after \(event))")
                    return
                }
                if !Self.check(engine, daemon, oracle, after: event) { return }
            }
        }
    }

    /// Returns false after the first violation (one report per sequence).
    static func check(_ engine: PolicyEngine, _ daemon: DaemonView, _ oracle: ArbitrationOracle, after event: PolicyEvent) -> Bool {
        let snapshots = engine.sessionIDs.compactMap(engine.snapshot(of:))
        let playing = snapshots.filter { engine.playingSessions.contains($0.id) }
        let strict = oracle.configuration.equalClassRule == .categoryRules

        for x in playing {
            // No playing session is interrupted by another playing session.
            for d in playing where d.id != x.id && oracle.dominates(d, x) && oracle.effect(of: d, on: x) == .interrupt {
                Issue.record("\(x.id) plays although \(d.id) interrupts it (after \(event))")
                return false
            }
            // Ducks are exactly the product of the current duckers, as the daemon was told.
            let expected = oracle.expectedGain(of: x, playing: playing)
            if abs(daemon.gain(x.id) - expected) > 1e-12 || x.gain != daemon.gain(x.id) {
                Issue.record("\(x.id) gain \(daemon.gain(x.id)) (engine \(x.gain)), expected \(expected) (after \(event))")
                return false
            }
        }
        // Nobody that is not playing stays ducked: every duck is restored exactly to 1.0.
        for x in snapshots where !playing.contains(where: { $0.id == x.id }) && daemon.gain(x.id) != 1.0 {
            Issue.record("\(x.id) is not playing but left at gain \(daemon.gain(x.id)) (after \(event))")
            return false
        }
        // No two non-mixable sessions of one class both play unducked (strict: always;
        // desktop: for classes whose equals interrupt each other). A session spared from system
        // alerts is not interrupted by one: in the alert class it is not counted. Nor is a
        // session of a spared category.
        var seen: [Int: SessionID] = [:]
        for x in playing where x.gain == 1.0 {
            let configuration = try! SessionConfiguration(category: x.category, mode: x.mode, options: x.options)
            guard !configuration.isMixable, strict || x.priorityClass.towardEqual == .interrupt else { continue }
            if x.priorityClass.isSystemAlert && x.preferences.prefersNoInterruptionsFromSystemAlerts { continue }
            // A spared recorder (the desktop's) plays through anything.
            if oracle.isSpared(x) { continue }
            if let other = seen[x.priorityClass.priority] {
                Issue.record("\(other) and \(x.id) both play unducked in class \(x.priorityClass) (after \(event))")
                return false
            }
            seen[x.priorityClass.priority] = x.id
        }
        // Nothing stays interrupted once every interrupter is gone.
        for w in snapshots where w.activity == .interrupted {
            let contenders = snapshots.filter { $0.id != w.id && $0.activity != .inactive }
            let held = contenders.contains { d in
                d.priorityClass.priority >= w.priorityClass.priority && oracle.effect(of: d, on: w) == .interrupt
            }
            if !held && !w.isHeldByMutedInput {
                Issue.record("\(w.id) stays interrupted with no interrupter left (after \(event))")
                return false
            }
        }
        // The daemon's view of interruptions matches the engine.
        let interrupted = Set(snapshots.filter { $0.activity == .interrupted }.map(\.id))
        if daemon.interrupted != interrupted {
            Issue.record("daemon thinks \(daemon.interrupted.sorted()) interrupted, engine \(interrupted.sorted()) (after \(event))")
            return false
        }
        return true
    }

    @Test func decisionsAreDeterministic() async {
        await propertyCheck(count: 500, input: Self.scenarios) { sessions, steps in
            let events = RandomScenario.events(sessions: sessions, steps: steps)
            func run() -> [PolicyDecision] {
                var engine = PolicyEngine(configuration: .strict)
                var log: [PolicyDecision] = []
                for (index, event) in events.enumerated() {
                    log += engine.handle(event, at: Timestamp(nanoseconds: UInt64(index) * 1_000))
                }
                return log
            }
            #expect(run() == run())
        }
    }
}

/// Which sessions are apps still opening their streams, from the events alone: an implicit
/// session the rules say nothing about, until its window ends, a rule classifies it or it goes.
struct OpeningApps {
    let configuration: PolicyConfiguration
    var sessions: Set<SessionID> = []

    mutating func apply(_ event: PolicyEvent) {
        switch event {
        case .sessionCreated(let id, let descriptor):
            let unclassified = descriptor.kind == .implicit && descriptor.classification == configuration.defaultClassification
            if configuration.sparesOpeningApps && unclassified { sessions.insert(id) }
        case .sessionRemoved(let id), .openingEnded(let id): sessions.remove(id)
        case .reclassify(let id, let classification) where classification != configuration.defaultClassification:
            sessions.remove(id)
        default: break
        }
    }
}
