import SessionPolicy

/// Every key of `audiosession.settings`: the knobs of `PolicyConfiguration`.
///
/// Keys are PipeWire-style (`duck.level`, dotted, lower-case); values use the engine's
/// wire names (`sessionAPI`, `playAndRecord`) so rules, D-Bus and the CLI agree.
public enum SettingKey: String, CaseIterable, Hashable, Sendable {
    /// `desktop` | `strict`: the base configuration every other key adjusts.
    case profile = "profile"
    /// `classInteraction` | `categoryRules`: how sessions of one class treat each other
    /// (the profile's choice unless set).
    case equalClass = "equal-class"
    /// Ducked gain: a linear factor `0.3`, or decibels `-12dB` / `"-12 dB"`.
    case duckLevel = "duck.level"
    /// Milliseconds the duck ramps down.
    case duckRamp = "duck.ramp-ms"
    /// Milliseconds the unduck ramps back up.
    case unduckRamp = "unduck.ramp-ms"
    /// Preference order of `sessionAPI`, `mpris`, `unlink`, `mute`.
    case interruptionMethods = "interruption.methods"
    /// Resume interrupted sessions when the interrupter ends.
    case resumeAfterInterruption = "interruption.resume"
    /// No interruption holds a recorder (desktop: true; strict: false).
    case sparesRecorders = "interruption.spare-recorders"
    /// Nothing interrupts an app the rules do not classify while it opens its streams
    /// (desktop: true; strict: false).
    case sparesOpeningApps = "interruption.spare-opening-apps"
    /// Categories paused when their output goes away; `true` = `[ playback ]`, `false` = none.
    case pauseOnUnplug = "unplug.pause"
    /// Port types that never take over when they appear (last in wins skips them):
    /// `[ HDMI displayPort ]` by default; `[]` lets every new device take over.
    case routeTakeoverIgnore = "route.takeover.ignore"
    /// Categories whose sessions move to a newly available device (all by default).
    case routeTakeoverCategories = "route.takeover.categories"
    /// Categories silent mode and the screen lock silence.
    case silentModeCategories = "silent-mode.categories"
    /// Arbitrate preferred sample rate / I/O buffer into the graph (quantum, rate).
    case hardwareArbitration = "hardware.arbitration"
    case defaultSampleRate = "hardware.default-rate"
    case defaultQuantum = "hardware.default-quantum"
    case minimumQuantum = "hardware.min-quantum"
    case maximumQuantum = "hardware.max-quantum"
    case allowedSampleRates = "hardware.allowed-rates"
    /// Record silence for apps whose permission is still undetermined (strict does).
    case silenceUndeterminedCapture = "capture.silence-undetermined"
    /// Send `silenceSecondaryAudioHint` notifications.
    case secondaryAudioHints = "secondary-audio-hints"
    /// `auto` | `daemon` | `never`: who switches Bluetooth headsets to their call profile.
    case headsetProfileSwitching = "bluetooth.profile-switching"
}

/// A parsed setting value, ready to apply to a `PolicyConfiguration`.
public enum SettingValue: Hashable, Sendable {
    case profile(PolicyProfile)
    case equalClass(EqualClassRule)
    case duckLevel(Double)
    case duration(Duration)
    case methods([InterruptionMethod])
    case flag(Bool)
    case categories(Set<Category>)
    case integer(Int)
    case integers([Int])
    case portTypes(Set<PortType>)
    case headsetProfileSwitching(HeadsetProfileSwitching)
}

extension SettingKey {
    static let longestRampMilliseconds = 60_000

    /// Reads a value for this key; the error is the precise reason.
    func parse(_ value: SPAJSONValue) throws(FormatProblem) -> SettingValue {
        switch self {
        case .profile:
            return .profile(try value.wireNamed(PolicyProfile.self, what: "profile"))
        case .equalClass:
            return .equalClass(try value.wireNamed(EqualClassRule.self, what: "equal-class rule"))
        case .headsetProfileSwitching:
            return .headsetProfileSwitching(try value.wireNamed(HeadsetProfileSwitching.self, what: "profile switching"))
        case .duckLevel:
            return .duckLevel(try Self.duckLevel(value))
        case .duckRamp, .unduckRamp:
            guard let milliseconds = value.integer else {
                throw FormatProblem(value.line, "\(rawValue) expects a whole number of milliseconds, found \(value.typeDescription)")
            }
            guard (0...Self.longestRampMilliseconds).contains(milliseconds) else {
                throw FormatProblem(value.line, "\(rawValue) must be between 0 and \(Self.longestRampMilliseconds) ms, found \(milliseconds)")
            }
            return .duration(.milliseconds(milliseconds))
        case .interruptionMethods:
            let methods = try value.list(of: InterruptionMethod.self, what: "interruption method", key: rawValue)
            guard !methods.isEmpty else { throw FormatProblem(value.line, "\(rawValue) needs at least one method") }
            if let repeated = methods.firstRepeated() {
                throw FormatProblem(value.line, "\(rawValue) lists '\(repeated.wireName)' twice")
            }
            return .methods(methods)
        case .pauseOnUnplug:
            if let flag = value.bool { return .categories(flag ? [.playback] : []) }
            return .categories(Set(try value.list(of: Category.self, what: "category", key: rawValue)))
        case .silentModeCategories, .routeTakeoverCategories:
            return .categories(Set(try value.list(of: Category.self, what: "category", key: rawValue)))
        case .routeTakeoverIgnore:
            return .portTypes(Set(try value.list(of: PortType.self, what: "port type", key: rawValue)))
        case .resumeAfterInterruption, .sparesRecorders, .sparesOpeningApps, .hardwareArbitration, .silenceUndeterminedCapture, .secondaryAudioHints:
            guard let flag = value.bool else {
                throw FormatProblem(value.line, "\(rawValue) expects true or false, found \(value.typeDescription)")
            }
            return .flag(flag)
        case .defaultSampleRate:
            return .integer(try Self.positive(value, key: rawValue, unit: "Hz", range: 8_000...768_000))
        case .defaultQuantum, .minimumQuantum, .maximumQuantum:
            return .integer(try Self.positive(value, key: rawValue, unit: "frames", range: 1...65_536))
        case .allowedSampleRates:
            guard let elements = value.elements else {
                throw FormatProblem(value.line, "\(rawValue) expects an array of sample rates, found \(value.typeDescription)")
            }
            var rates: [Int] = []
            for element in elements {
                rates.append(try Self.positive(element, key: rawValue, unit: "Hz", range: 8_000...768_000))
            }
            guard !rates.isEmpty else { throw FormatProblem(value.line, "\(rawValue) needs at least one rate") }
            return .integers(rates.sorted())
        }
    }

    /// `0.3` (linear, 0...1) or `-12dB` / `"-12 dB"` (decibels, at most 0).
    static func duckLevel(_ value: SPAJSONValue) throws(FormatProblem) -> Double {
        if let linear = value.number {
            guard (0...1).contains(linear) else {
                throw FormatProblem(value.line, "duck.level as a linear factor must be between 0 and 1, found \(value.text ?? "\(linear)") (write decibels as \"-12dB\")")
            }
            return linear
        }
        if let text = value.text, text.lowercased().hasSuffix("db") {
            let number = text.dropLast(2).trimmingSpaces()
            guard SPAJSONReader.isNumber(number), let decibels = Double(number) else {
                throw FormatProblem(value.line, "duck.level: '\(text)' is not a number of decibels")
            }
            guard decibels <= 0 else {
                throw FormatProblem(value.line, "duck.level must not amplify: \(text) is above 0 dB")
            }
            return PolicyConfiguration.linearGain(decibels: decibels)
        }
        throw FormatProblem(value.line, "duck.level expects a linear factor (0.3) or decibels (\"-12dB\"), found \(value.typeDescription)")
    }

    static func positive(_ value: SPAJSONValue, key: String, unit: String, range: ClosedRange<Int>) throws(FormatProblem) -> Int {
        guard let number = value.integer else {
            throw FormatProblem(value.line, "\(key) expects a whole number of \(unit), found \(value.typeDescription)")
        }
        guard range.contains(number) else {
            throw FormatProblem(value.line, "\(key): \(number) \(unit) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }
}

extension Array where Element: Hashable {
    func firstRepeated() -> Element? {
        var seen: Set<Element> = []
        for element in self where !seen.insert(element).inserted { return element }
        return nil
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
