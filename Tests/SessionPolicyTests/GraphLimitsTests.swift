import Testing

@testable import SessionPolicy

/// What the running graph accepts narrows the rules' hardware limits, always from the rules.
@Suite("Graph limits")
struct GraphLimitsTests {
    let start = Timestamp(nanoseconds: 1)

    @Test func aGraphThatLaterAcceptsMoreGetsTheRulesDefaultBack() {
        var engine = PolicyEngine(configuration: .desktop)
        #expect(engine.configuration.hardwareLimits.defaultSampleRate == 48_000)
        #expect(engine.graphAccepts(GraphLimits(sampleRates: [44_100], quantumRange: 256...2048), at: start) != nil)
        #expect(engine.configuration.hardwareLimits.defaultSampleRate == 44_100)
        #expect(engine.graphAccepts(GraphLimits(sampleRates: [44_100, 48_000], quantumRange: 256...2048), at: start) != nil)
        #expect(engine.configuration.hardwareLimits.defaultSampleRate == 48_000, "the rules' default, not the narrowed one")
    }

    @Test func theSameLimitsAgainChangeNothing() {
        var engine = PolicyEngine(configuration: .desktop)
        let limits = GraphLimits(sampleRates: [48_000], quantumRange: 64...1024)
        #expect(engine.graphAccepts(limits, at: start) != nil)
        #expect(engine.graphAccepts(limits, at: start) == nil)
    }

    @Test func aRulesReloadKeepsWhatTheGraphAccepts() {
        var engine = PolicyEngine(configuration: .desktop)
        _ = engine.graphAccepts(GraphLimits(sampleRates: [44_100], quantumRange: 256...2048), at: start)
        _ = engine.reconfigure(.strict, at: start)
        #expect(engine.configuration.hardwareLimits.allowedSampleRates == [44_100])
        #expect(engine.configuration.hardwareLimits.quantumRange == 256...2048)
        #expect(engine.configuration.hardwareLimits.defaultSampleRate == 44_100)
    }
}
