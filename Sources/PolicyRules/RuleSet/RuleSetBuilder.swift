import SessionPolicy

extension RuleSet {
    /// Layers files (earlier first) into one rule set: settings key by key and classes
    /// field by field, the last file to set a value winning; rules concatenated in order.
    /// Throws every problem of every file, so nothing is ever half-applied.
    public static func build(files: [RulesFile]) throws(RulesError) -> RuleSet {
        var diagnostics: [RulesDiagnostic] = []

        // Settings: the last writer of each key wins.
        var settings: [SettingKey: (value: SettingValue, file: String, line: Int)] = [:]
        for file in files {
            for setting in file.settings { settings[setting.key] = (setting.value, file.path, setting.line) }
        }
        var profile = PolicyProfile.desktop
        if case .profile(let chosen)? = settings[.profile]?.value { profile = chosen }
        var configuration = PolicyConfiguration.for(profile)
        for key in SettingKey.allCases where key != .profile {
            guard let setting = settings[key] else { continue }
            configuration.apply(key, setting.value)
        }
        diagnostics += hardwareProblems(configuration, settings: settings)

        // Classes: field by field over the built-in ones.
        var classes = Dictionary(uniqueKeysWithValues: PriorityClass.builtIn.map { ($0.name, $0) })
        var firstDefinition: [String: (file: String, line: Int)] = [:]
        var pending: [String: (priority: Int?, lower: Interaction?, equal: Interaction?)] = [:]
        for file in files {
            for definition in file.classes {
                if classes[definition.name] == nil && firstDefinition[definition.name] == nil {
                    firstDefinition[definition.name] = (file.path, definition.line)
                }
                var fields = pending[definition.name] ?? (nil, nil, nil)
                fields.priority = definition.priority ?? fields.priority
                fields.lower = definition.towardLower ?? fields.lower
                fields.equal = definition.towardEqual ?? fields.equal
                pending[definition.name] = fields
            }
        }
        for (name, fields) in pending.sorted(by: { $0.key < $1.key }) {
            if var existing = classes[name] {
                existing.priority = fields.priority ?? existing.priority
                existing.towardLower = fields.lower ?? existing.towardLower
                existing.towardEqual = fields.equal ?? existing.towardEqual
                classes[name] = existing
            } else if let priority = fields.priority, let lower = fields.lower {
                classes[name] = PriorityClass(name: name, priority: priority, towardLower: lower, towardEqual: fields.equal ?? .mix)
            } else {
                let origin = firstDefinition[name]!
                let missing = [fields.priority == nil ? "priority" : nil, fields.lower == nil ? "toward-lower" : nil].compactMap { $0 }
                diagnostics.append(RulesDiagnostic(file: origin.file, line: origin.line,
                    reason: "new priority class '\(name)' needs \(missing.joined(separator: " and "))"))
            }
        }
        configuration.priorityClasses = classes

        // Rules: every class a rule names must exist once all files are layered.
        let rules = files.flatMap(\.rules)
        for rule in rules {
            if let name = rule.classify.priorityClassName, classes[name] == nil {
                diagnostics.append(RulesDiagnostic(file: rule.origin.file, line: rule.classify.lines[.priorityClass] ?? rule.origin.line,
                    reason: "unknown priority class '\(name)' (known: \(classes.values.sorted().map(\.name).joined(separator: ", ")))"))
            }
        }

        guard diagnostics.isEmpty else { throw RulesError(diagnostics) }
        var ruleSet = RuleSet(
            configuration: configuration, rules: rules, files: files.map(\.path), portRules: files.flatMap(\.portRules))
        ruleSet.deriveEngineTables()
        return ruleSet
    }

    /// The engine also keeps a role table and a default classification; derive both from
    /// the rules so the engine and `classify` can never disagree about a role-only stream.
    private mutating func deriveEngineTables() {
        var roles: Set<String> = []
        for rule in rules {
            for clause in rule.matches {
                for condition in clause.conditions where condition.key == "media.role" && !condition.pattern.isNegated {
                    if case .equals(let role) = condition.pattern.test { roles.insert(role) }
                }
            }
        }
        var table: [String: Classification] = [:]
        for role in roles.sorted() {
            table[role.lowercased()] = classify(properties: ["media.role": role]).classification
        }
        var configuration = self.configuration
        configuration.roleClassifications = table
        configuration.defaultClassification = classify(properties: [:]).classification
        self = RuleSet(configuration: configuration, rules: rules, files: files, portRules: portRules)
    }

    private static func hardwareProblems(
        _ configuration: PolicyConfiguration,
        settings: [SettingKey: (value: SettingValue, file: String, line: Int)]
    ) -> [RulesDiagnostic] {
        var problems: [RulesDiagnostic] = []
        func report(_ key: SettingKey, _ reason: String) {
            let origin = settings[key]
            problems.append(RulesDiagnostic(file: origin?.file ?? "<defaults>", line: origin?.line, reason: reason))
        }
        let limits = configuration.hardwareLimits
        if case .integer(let minimum)? = settings[.minimumQuantum]?.value,
           case .integer(let maximum)? = settings[.maximumQuantum]?.value, minimum > maximum {
            report(.maximumQuantum, "hardware.max-quantum \(maximum) is below hardware.min-quantum \(minimum)")
            return problems
        }
        if !limits.quantumRange.contains(limits.defaultQuantum) {
            let key: SettingKey = settings[.defaultQuantum] != nil ? .defaultQuantum : (settings[.minimumQuantum] != nil ? .minimumQuantum : .maximumQuantum)
            report(key, "hardware.default-quantum \(limits.defaultQuantum) is outside hardware.min-quantum...hardware.max-quantum (\(limits.quantumRange.lowerBound)...\(limits.quantumRange.upperBound))")
        }
        if !limits.allowedSampleRates.contains(limits.defaultSampleRate) {
            let key: SettingKey = settings[.defaultSampleRate] != nil ? .defaultSampleRate : .allowedSampleRates
            report(key, "hardware.default-rate \(limits.defaultSampleRate) is not in hardware.allowed-rates")
        }
        return problems
    }
}

extension PolicyConfiguration {
    /// Applies one setting (already parsed and range-checked).
    mutating func apply(_ key: SettingKey, _ value: SettingValue) {
        switch (key, value) {
        case (.equalClass, .equalClass(let rule)): equalClassRule = rule
        case (.duckLevel, .duckLevel(let level)): duckLevel = level
        case (.duckRamp, .duration(let ramp)): duckRamp = ramp
        case (.unduckRamp, .duration(let ramp)): unduckRamp = ramp
        case (.interruptionMethods, .methods(let methods)): interruptionMethods = methods
        case (.resumeAfterInterruption, .flag(let on)): resumeAfterInterruption = on
        case (.pauseOnUnplug, .categories(let categories)): pauseOnUnplug = categories
        case (.sparesRecorders, .flag(let on)): sparesRecorders = on
        case (.sparesOpeningApps, .flag(let on)): sparesOpeningApps = on
        case (.silentModeCategories, .categories(let categories)): silencedBySilentMode = categories
        case (.routeTakeoverIgnore, .portTypes(let types)): routeTakeoverIgnoredTypes = types
        case (.routeTakeoverCategories, .categories(let categories)): routeTakeoverCategories = categories
        case (.hardwareArbitration, .flag(let on)): hardwareArbitration = on
        case (.defaultSampleRate, .integer(let rate)): hardwareLimits.defaultSampleRate = rate
        case (.defaultQuantum, .integer(let quantum)): hardwareLimits.defaultQuantum = quantum
        case (.minimumQuantum, .integer(let quantum)):
            hardwareLimits.quantumRange = quantum...max(quantum, hardwareLimits.quantumRange.upperBound)
        case (.maximumQuantum, .integer(let quantum)):
            hardwareLimits.quantumRange = min(quantum, hardwareLimits.quantumRange.lowerBound)...quantum
        case (.allowedSampleRates, .integers(let rates)): hardwareLimits.allowedSampleRates = rates
        case (.silenceUndeterminedCapture, .flag(let on)): silenceUndeterminedCapture = on
        case (.secondaryAudioHints, .flag(let on)): secondaryAudioHints = on
        case (.headsetProfileSwitching, .headsetProfileSwitching(let who)): headsetProfileSwitching = who
        default: break
        }
    }
}
