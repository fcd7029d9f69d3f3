/// A session that is active or interrupted, in the compact form the arbitration walk
/// reads (a contiguous array sorted by dominance: priority, then most recent activation).
///
/// Everything the walk needs is inline, so it never touches a dictionary per element.
struct Contender: Sendable {
    var id: SessionID
    var priority: Int
    var serial: UInt64
    var appKey: Int
    /// What others' effects see: bit 0 non-mixable, bit 1 spokenAudio, bit 2 spared from
    /// system alerts (``SessionPreferences/prefersNoInterruptionsFromSystemAlerts``).
    var audience: Int
    var effects: Effects
    var isExplicit: Bool
    /// An explicit session recording that did not allow system sounds: while one contends,
    /// notification sounds are silenced (``PolicyEngine/alertsSilencedByRecording``).
    var silencesAlerts: Bool
    var isNonMixable: Bool
    var hasWish: Bool
    /// A recorder spared from interruption (``PolicyConfiguration/sparesRecorders``): nothing
    /// above holds it.
    var isSpared: Bool
    /// Interrupted and waiting (else active). Waiting contenders are judged every walk at
    /// their old position and resume when nothing above interrupts them.
    var isWaiting: Bool
    /// When its interruption ends it plays again at once (an implicit session whose
    /// streams still run, resumable, not paused by its user, not a stale voice prompt).
    var resumesToPlay: Bool
    /// Last walk found it playing (active and not interrupted).
    var isEffective = false
    /// Number of duckers the daemon was last told about (0 = gain 1.0).
    var appliedDuckCount: Int32 = 0
    /// Last secondary-audio hint sent (explicit sessions only).
    var appliedHint = false
    /// Interrupted by a muted microphone (``PolicyEngine/updateMicrophoneMuteInterruptions()``):
    /// it keeps waiting while that lasts, whoever else ends.
    var heldByMutedInput = false
    /// The interrupter last recorded for it, to record each new one once.
    var lastBlocker = WalkCounters.none

    /// What this session does to the eight audiences, as a dominating session of a
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
    /// - always: `duckOthers` ducks, `interruptSpokenAudioAndMixWithOthers` interrupts spokenAudio;
    /// - a system alert (a notification sound) does nothing to a session that asked to be spared.
    init(configuration: SessionConfiguration, priorityClass: PriorityClass, interaction: Interaction, rule: EqualClassRule) {
        let options = configuration.effectiveOptions
        let nonMixable = !configuration.isMixable
        var interruptAsHigher: UInt8 = 0, duckAsHigher: UInt8 = 0
        var interruptAsEqual: UInt8 = 0, duckAsEqual: UInt8 = 0
        let isSystemAlert = priorityClass.isSystemAlert
        for audience in 0..<8 {
            let audienceNonMixable = audience & 1 != 0
            let audienceSpoken = audience & 2 != 0
            if isSystemAlert && audience & 4 != 0 { continue }
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

    var isNone: Bool { interruptAsHigher | duckAsHigher | interruptAsEqual | duckAsEqual == 0 }
}

/// The running state of one walk down the contenders: how many playing sessions above
/// interrupt or duck each audience, split into higher classes and the current class.
struct WalkCounters {
    static let none = UInt64.max

    private var currentPriority = Int.min
    private var started = false
    private var higherInterrupt = SIMD8<Int32>.zero
    private var higherDuck = SIMD8<Int32>.zero
    private var pendingInterrupt = SIMD8<Int32>.zero
    private var pendingDuck = SIMD8<Int32>.zero
    private var equalInterrupt = SIMD8<Int32>.zero
    private var equalDuck = SIMD8<Int32>.zero
    private var higherInterrupter = SIMD8<UInt64>(repeating: none)
    private var pendingInterrupter = SIMD8<UInt64>(repeating: none)
    private var equalInterrupter = SIMD8<UInt64>(repeating: none)

    /// Moves to the contender's class: what the previous class did becomes "higher".
    @inline(__always)
    mutating func enter(priority: Int) {
        guard !started || priority != currentPriority else { return }
        started = true
        currentPriority = priority
        higherInterrupt &+= pendingInterrupt
        higherDuck &+= pendingDuck
        higherInterrupter.replace(with: pendingInterrupter, where: higherInterrupter .== Self.none)
        pendingInterrupt = .zero
        pendingDuck = .zero
        pendingInterrupter = SIMD8(repeating: Self.none)
        equalInterrupt = .zero
        equalDuck = .zero
        equalInterrupter = SIMD8(repeating: Self.none)
    }

    @inline(__always)
    func isInterrupted(_ audience: Int) -> Bool { higherInterrupt[audience] &+ equalInterrupt[audience] > 0 }

    @inline(__always)
    func duckCount(_ audience: Int) -> Int32 { higherDuck[audience] &+ equalDuck[audience] }

    /// The nearest interrupter of an audience (same class first), or `none`.
    @inline(__always)
    func interrupter(_ audience: Int) -> UInt64 {
        equalInterrupter[audience] != Self.none ? equalInterrupter[audience] : higherInterrupter[audience]
    }

    /// A playing contender adds its effects for everyone below it.
    @inline(__always)
    mutating func contribute(_ effects: Contender.Effects, id: SessionID) {
        if effects.isNone { return }
        pendingInterrupt &+= Self.vector(effects.interruptAsHigher)
        pendingDuck &+= Self.vector(effects.duckAsHigher)
        equalInterrupt &+= Self.vector(effects.interruptAsEqual)
        equalDuck &+= Self.vector(effects.duckAsEqual)
        let raw = SIMD8<UInt64>(repeating: id.rawValue)
        pendingInterrupter.replace(with: raw, where: (pendingInterrupter .== Self.none) .& Self.bits(effects.interruptAsHigher))
        equalInterrupter.replace(with: raw, where: (equalInterrupter .== Self.none) .& Self.bits(effects.interruptAsEqual))
    }

    @inline(__always)
    static func vector(_ mask: UInt8) -> SIMD8<Int32> {
        (SIMD8<Int32>(repeating: Int32(mask)) &>> lanes) & 1
    }

    /// 0, 1, ... 7: lane `a` of a mask is bit `a`.
    static let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)

    @inline(__always)
    static func bits(_ mask: UInt8) -> SIMDMask<SIMD8<UInt64>.MaskStorage> {
        ((SIMD8<UInt64>(repeating: UInt64(mask)) &>> laneShifts) & 1) .!= 0
    }

    static let laneShifts = SIMD8<UInt64>(0, 1, 2, 3, 4, 5, 6, 7)
}
