#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything an integrator tunes. The rules files (`PolicyRules`) fill it; the two
/// profiles ship as `.desktop` and `.strict`.
public struct PolicyConfiguration: Hashable, Sendable {
    public var profile: PolicyProfile
    /// Known priority classes (built-in ones plus any a rules file defines), by name.
    public var priorityClasses: [String: PriorityClass]
    /// How sessions of one class treat each other.
    public var equalClassRule: EqualClassRule
    /// Classification of a session the rules say nothing about.
    public var defaultClassification: Classification
    /// Classification by PipeWire `media.role` (lower-cased), applied before app rules.
    public var roleClassifications: [String: Classification]
    /// Linear gain factor of a ducked session (0...1). Rules accept dB; see `linearGain(decibels:)`.
    public var duckLevel: Double
    /// How long a duck ramps down.
    public var duckRamp: Duration
    /// How long an unduck ramps back to 1.0.
    public var unduckRamp: Duration
    /// Preferred ways to interrupt / resume / pause, first that a session supports wins.
    public var interruptionMethods: [InterruptionMethod]
    /// Categories whose sessions are paused when their output device goes away.
    public var pauseOnUnplug: Set<Category>
    /// Port types that do not take over when they appear ("last in wins" skips them; they are
    /// used only when nothing else is there). HDMI and DisplayPort by default: a monitor waking
    /// up must not steal the music (PulseAudio's switch-on-connect has an ignore list for this).
    public var routeTakeoverIgnoredTypes: Set<PortType>
    /// Categories whose sessions move to a newly available device; others stay where they are
    /// while their ports exist.
    public var routeTakeoverCategories: Set<Category>
    /// Whether interrupted sessions are resumed (ended + shouldResume, MPRIS Play, relink)
    /// when the interrupter ends.
    public var resumeAfterInterruption: Bool
    /// Whether no interruption holds a recorder: a session in the `record` category, or one
    /// whose streams all capture (a monitor recording included). It plays nothing, and on a
    /// desktop the microphone is shared: holding its capture for a call gains the call nothing
    /// and loses the recording without a word. The desktop spares them; strict keeps
    /// AVAudioSession's rule (a call interrupts a recording, and an explicit one is told).
    public var sparesRecorders: Bool
    /// Whether an app the rules say nothing about is spared from interruption while its
    /// streams are still arriving (``AppBehaviour/openingWindow``): until it has shown what it
    /// is, it may be one end of a call, and holding that end holds the call. The desktop spares
    /// them; strict judges every stream as it comes.
    public var sparesOpeningApps: Bool
    /// Categories that silent mode and screen lock silence.
    public var silencedBySilentMode: Set<Category>
    /// Whether preferred sample rate / I/O buffer duration are arbitrated into the graph.
    public var hardwareArbitration: Bool
    public var hardwareLimits: HardwareLimits
    /// Capture of an app whose permission is still `undetermined` is silenced too
    /// (Apple's rule). The desktop profile only silences `denied`.
    public var silenceUndeterminedCapture: Bool
    /// Whether `silenceSecondaryAudioHint` notifications are sent.
    public var secondaryAudioHints: Bool
    /// Whether the daemon switches headsets to their call profile for calls.
    public var headsetProfileSwitching: HeadsetProfileSwitching

    public init(
        profile: PolicyProfile,
        priorityClasses: [PriorityClass] = PriorityClass.builtIn,
        equalClassRule: EqualClassRule,
        defaultClassification: Classification = .unconfigured,
        roleClassifications: [String: Classification] = [:],
        duckLevel: Double = 0.3,
        duckRamp: Duration = .milliseconds(250),
        unduckRamp: Duration = .milliseconds(500),
        interruptionMethods: [InterruptionMethod] = [.sessionAPI, .mpris, .unlink, .mute],
        pauseOnUnplug: Set<Category> = [.playback],
        routeTakeoverIgnoredTypes: Set<PortType> = [.HDMI, .displayPort],
        routeTakeoverCategories: Set<Category> = Set(Category.allCases),
        resumeAfterInterruption: Bool = true,
        sparesRecorders: Bool = false,
        sparesOpeningApps: Bool = false,
        silencedBySilentMode: Set<Category> = [.ambient, .soloAmbient],
        hardwareArbitration: Bool = true,
        hardwareLimits: HardwareLimits = HardwareLimits(),
        silenceUndeterminedCapture: Bool = false,
        secondaryAudioHints: Bool = true,
        headsetProfileSwitching: HeadsetProfileSwitching = .auto
    ) {
        self.profile = profile
        self.priorityClasses = Dictionary(priorityClasses.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.equalClassRule = equalClassRule
        self.defaultClassification = defaultClassification
        self.roleClassifications = roleClassifications
        self.duckLevel = duckLevel
        self.duckRamp = duckRamp
        self.unduckRamp = unduckRamp
        self.interruptionMethods = interruptionMethods
        self.pauseOnUnplug = pauseOnUnplug
        self.routeTakeoverIgnoredTypes = routeTakeoverIgnoredTypes
        self.routeTakeoverCategories = routeTakeoverCategories
        self.resumeAfterInterruption = resumeAfterInterruption
        self.sparesRecorders = sparesRecorders
        self.sparesOpeningApps = sparesOpeningApps
        self.silencedBySilentMode = silencedBySilentMode
        self.hardwareArbitration = hardwareArbitration
        self.hardwareLimits = hardwareLimits
        self.silenceUndeterminedCapture = silenceUndeterminedCapture
        self.secondaryAudioHints = secondaryAudioHints
        self.headsetProfileSwitching = headsetProfileSwitching
    }

    /// Desktop: calls interrupt media, notifications and navigation duck it, two music
    /// players play together, games (ambient) mix, recorders record through calls.
    public static let desktop = PolicyConfiguration(
        profile: .desktop,
        equalClassRule: .classInteraction,
        roleClassifications: defaultRoleClassifications,
        sparesRecorders: true,
        sparesOpeningApps: true)

    /// AVAudioSession in full: equal classes follow the category rules (a non-mixable
    /// activation interrupts every other non-mixable session), undetermined record
    /// permission records silence.
    public static let strict = PolicyConfiguration(
        profile: .strict,
        equalClassRule: .categoryRules,
        roleClassifications: defaultRoleClassifications,
        silenceUndeterminedCapture: true)

    /// The shipped configuration of a profile.
    public static func `for`(_ profile: PolicyProfile) -> PolicyConfiguration {
        profile == .desktop ? .desktop : .strict
    }

    /// A class by wire name.
    public func priorityClass(named name: String) -> PriorityClass? { priorityClasses[name] }

    /// `media.role` → classification (PulseAudio / WirePlumber role names).
    public static let defaultRoleClassifications: [String: Classification] = {
        let music = Classification(category: .playback, priorityClass: .media)
        let movie = Classification(category: .playback, mode: .moviePlayback, priorityClass: .media)
        let game = Classification(category: .ambient, priorityClass: .media)
        let notification = Classification(category: .playback, options: [.duckOthers], priorityClass: .notification)
        let navigation = Classification(
            category: .playback, mode: .voicePrompt,
            options: [.duckOthers, .interruptSpokenAudioAndMixWithOthers], priorityClass: .navigation)
        let assistant = Classification(category: .playAndRecord, priorityClass: .assistant)
        let call = Classification(category: .playAndRecord, mode: .voiceChat, priorityClass: .communication)
        let alarm = Classification(category: .playback, priorityClass: .alarm)
        let emergency = Classification(category: .playback, priorityClass: .emergency)
        let production = Classification(category: .playAndRecord, options: [.mixWithOthers], priorityClass: .media)
        let spoken = Classification(category: .playback, mode: .spokenAudio, priorityClass: .media)
        return [
            "music": music, "multimedia": music, "video": movie, "movie": movie, "game": game,
            "event": notification, "notification": notification, "animation": game, "a11y": navigation,
            "accessibility": navigation, "navigation": navigation, "assistant": assistant,
            "phone": call, "communication": call, "alarm": alarm, "alert": alarm, "emergency": emergency,
            "production": production, "spokenaudio": spoken, "podcast": spoken, "audiobook": spoken,
        ]
    }()

    /// dB → linear amplitude factor (rules accept `-10.5dB`): 10^(dB/20).
    public static func linearGain(decibels: Double) -> Double {
        pow(10, decibels / 20)
    }

    /// Linear factor → dB.
    public static func decibels(linearGain: Double) -> Double {
        20 * log10(linearGain)
    }
}

/// What a running graph's clock accepts: its sample rates (empty: any) and quantum range.
public struct GraphLimits: Hashable, Sendable {
    public var sampleRates: [Int]
    public var quantumRange: ClosedRange<Int>

    public init(sampleRates: [Int], quantumRange: ClosedRange<Int>) {
        self.sampleRates = sampleRates
        self.quantumRange = quantumRange
    }
}

extension PolicyConfiguration {
    /// This configuration within what the running graph accepts: the engine arbitrates only
    /// among values the hardware takes (a wish for 192 kHz on a graph that allows up to 96 kHz
    /// is snapped to the nearest allowed rate and reported, not forced). The defaults, what is
    /// reported while nobody prefers anything, move into what the graph accepts too (a server
    /// that runs at 44.1 kHz with a fixed latency does not run at 48 kHz).
    public func accepting(sampleRates: [Int], quantumRange: ClosedRange<Int>) -> PolicyConfiguration {
        var configuration = self
        var limits = configuration.hardwareLimits
        limits.allowedSampleRates = sampleRates
        limits.quantumRange = quantumRange
        if !sampleRates.isEmpty, !sampleRates.contains(limits.defaultSampleRate) {
            let wanted = limits.defaultSampleRate
            limits.defaultSampleRate = sampleRates.min { abs($0 - wanted) < abs($1 - wanted) } ?? wanted
        }
        limits.defaultQuantum = min(max(limits.defaultQuantum, quantumRange.lowerBound), quantumRange.upperBound)
        configuration.hardwareLimits = limits
        return configuration
    }
}
