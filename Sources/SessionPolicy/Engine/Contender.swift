/// A session that is active or interrupted, in the compact form the arbitration pass
/// walks (a contiguous array sorted by dominance: priority, then most recent activation).
///
/// Everything the pass needs is inline so it never touches a dictionary per element.
struct Contender: Sendable {
    var id: SessionID
    var priority: Int
    var serial: UInt64
    /// Kind of session as seen by others' effects: bit 0 non-mixable, bit 1 spokenAudio.
    var audience: Int
    var effects: Effects
    var isExplicit: Bool
    var isNonMixable: Bool
    var appKey: Int
    /// Interrupted and waiting (else active).
    var isWaiting: Bool
    /// Waiting and judged each walk: resumes when nothing above interrupts it now.
    var isResumeCandidate: Bool
    var userPaused: Bool
    var hasRunningStreams: Bool
    var hasWish: Bool
    /// Last pass found it playing (active and not interrupted).
    var isEffective = false
    /// Number of duckers the daemon was last told about (0 = gain 1.0).
    var appliedDuckCount: Int32 = 0
    /// Last secondary-audio hint sent (explicit sessions only).
    var appliedHint = false

    /// What this session does to the four audiences, as a dominating session of a
    /// higher class and as a newer session of the same class. Bit `a` = audience `a`.
    struct Effects: Hashable, Sendable {
        var interruptAsHigher: UInt8
        var duckAsHigher: UInt8
        var interruptAsEqual: UInt8
        var duckAsEqual: UInt8
    }

    /// Dominance order: higher priority first, then most recent activation first.
    @inline(__always)
    static func precedes(_ lhsPriority: Int, _ lhsSerial: UInt64, _ rhsPriority: Int, _ rhsSerial: UInt64) -> Bool {
        lhsPriority != rhsPriority ? lhsPriority > rhsPriority : lhsSerial > rhsSerial
    }
}

extension Contender.Effects {
    /// The arbitration rules in one place (see docs/policy-engine.md):
    /// - a higher class does its class interaction to lower ones;
    /// - between equals, the newer does the class's `towardEqual` (desktop) or AVAudioSession's
    ///   rule, non-mixable interrupts non-mixable (strict); strict also applies that rule across classes;
    /// - always: `duckOthers` ducks, `interruptSpokenAudioAndMixWithOthers` interrupts spokenAudio.
    init(configuration: SessionConfiguration, priorityClass: PriorityClass, interaction: Interaction, rule: EqualClassRule) {
        let options = configuration.effectiveOptions
        let nonMixable = !configuration.isMixable
        var interruptAsHigher: UInt8 = 0, duckAsHigher: UInt8 = 0
        var interruptAsEqual: UInt8 = 0, duckAsEqual: UInt8 = 0
        for audience in 0..<4 {
            let audienceNonMixable = audience & 1 != 0
            let audienceSpoken = audience & 2 != 0
            var fromOptions = Interaction.mix
            if options.contains(.duckOthers) { fromOptions = .duck }
            if options.interruptsSpokenAudio && audienceSpoken { fromOptions = .interrupt }
            let categoryRule: Interaction = nonMixable && audienceNonMixable ? .interrupt : .mix
            let asHigher = max(interaction, fromOptions, rule == .categoryRules ? categoryRule : .mix)
            let asEqual = max(fromOptions, rule == .categoryRules ? categoryRule : priorityClass.towardEqual)
            let bit = UInt8(1) << UInt8(audience)
            if asHigher == .interrupt { interruptAsHigher |= bit } else if asHigher == .duck { duckAsHigher |= bit }
            if asEqual == .interrupt { interruptAsEqual |= bit } else if asEqual == .duck { duckAsEqual |= bit }
        }
        self.init(interruptAsHigher: interruptAsHigher, duckAsHigher: duckAsHigher,
                  interruptAsEqual: interruptAsEqual, duckAsEqual: duckAsEqual)
    }
}

/// Per-audience counters of the pass.
struct AudienceCounts: Sendable {
    var values: SIMD4<Int32> = .zero

    @inline(__always)
    mutating func add(mask: UInt8) {
        if mask != 0 { values &+= Self.table[Int(mask & 0xF)] }
    }

    @inline(__always)
    subscript(audience: Int) -> Int32 { values[audience] }

    static let table: [SIMD4<Int32>] = (0..<16).map { mask in
        SIMD4<Int32>((0..<4).map { mask & (1 << $0) != 0 ? 1 : 0 })
    }
}
