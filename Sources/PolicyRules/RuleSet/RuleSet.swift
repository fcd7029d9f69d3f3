import SessionPolicy

/// A complete, valid set of rules: the engine configuration and the classification rules.
/// Built whole or not at all (`build` throws every problem); immutable once built, so a
/// reload swaps one value for another and never leaves a half-applied set.
public struct RuleSet: Hashable, Sendable {
    /// The engine configuration: profile, knobs, classes, and the role table the rules imply.
    public let configuration: PolicyConfiguration
    /// Classification rules in application order (file order, layer order).
    public let rules: [ClassificationRule]
    /// The files it was built from, in layer order.
    public let files: [String]
    /// Port type rules (`audiosession.port-rules`) in application order.
    public let portRules: [PortRule]

    /// The port type the rules give a sink or source (its node's properties over its device's),
    /// or nil to leave the daemon's own typing. The last matching rule wins.
    public func portType(properties: [String: String]) -> PortType? {
        portRules.last { rule in rule.matches.contains { $0.matches(properties) } }?.type
    }

    /// Classifies a stream from its properties (the node's, with its client's merged in:
    /// `media.role`, `application.name`, `application.process.binary`, `application.id`,
    /// `pipewire.access.portal.app_id`, `media.name`, ...). Pure and deterministic.
    ///
    /// Every matching rule applies, in order, so later rules override earlier ones part by
    /// part (as PipeWire applies `update-props` actions).
    ///
    /// An empty `media.role` is no role (`pw-cat --media-role ""` and some pulse clients
    /// send one), so `media.role = null` rules see it as absent.
    public func classify(properties: [String: String]) -> StreamClassification {
        apply(to: properties, explaining: true)
    }

    /// The classification ``classify(properties:)`` gives, without what says why (the matched
    /// rules, their conditions, each field's origin): the daemon's path for every new stream.
    public func classification(of properties: [String: String]) -> Classification {
        apply(to: properties, explaining: false).classification
    }

    private func apply(to given: [String: String], explaining: Bool) -> StreamClassification {
        var properties = given
        if properties["media.role"]?.isEmpty == true { properties["media.role"] = nil }
        var result = Classification.unconfigured
        var matched: [RuleMatch] = []
        var origins: [StreamClassification.Field: RuleReference] = [:]
        func note(_ fields: [StreamClassification.Field], from rule: ClassificationRule) {
            if explaining { for field in fields { origins[field] = rule.origin } }
        }
        for rule in rules {
            guard let clause = rule.firstMatchingClause(properties) else { continue }
            let action = rule.classify
            if let category = action.category {
                result.category = category
                result.mode = action.mode ?? .default
                result.options = action.options ?? []
                note([.category, .mode, .options], from: rule)
            } else {
                if let mode = action.mode { result.mode = mode; note([.mode], from: rule) }
                if let options = action.options { result.options = options; note([.options], from: rule) }
            }
            let priorityClass = action.priorityClassName.flatMap(configuration.priorityClass(named:))
            if let priorityClass {
                result.priorityClass = priorityClass
                note([.priorityClass], from: rule)
            }
            if let interaction = action.interaction {
                result.interaction = interaction
                note([.interaction], from: rule)
            }
            if explaining {
                matched.append(RuleMatch(
                    rule: rule.origin, clauseLine: clause.line, conditions: clause.explain(properties),
                    applied: action.appliedDescription(priorityClassKnown: priorityClass != nil)))
            }
        }
        var notes: [String] = []
        let refused = result.options.refused(by: result.category)
        if !refused.isEmpty {
            if explaining {
                notes.append("dropped option \(refused.wireNames.joined(separator: ", ")): category \(result.category.wireName) does not accept it")
            }
            result.options.subtract(refused)
        }
        return StreamClassification(classification: result, matchedRules: matched, origins: origins, notes: notes)
    }

    /// Classifies a stream node: its own properties over its client's (where
    /// `application.process.binary` and the Flatpak app id live).
    /// What a call is: the classification of a stream that says it is one
    /// (`media.role = Communication`). An app that captures from a microphone while it plays
    /// gets it (``AppComposition``), so integrators tune calls in one place.
    public var callClassification: Classification {
        classification(of: ["media.role": "Communication"])
    }

    /// How these rules' apps are classified from their streams together: a call is what a
    /// `Communication` stream is, an unclassified stream what no rule matches.
    public var appComposition: AppComposition {
        AppComposition(call: callClassification, unclassified: configuration.defaultClassification)
    }

    public func classify(node: [String: String], client: [String: String]) -> StreamClassification {
        classify(properties: client.merging(node) { _, nodeValue in nodeValue })
    }

    init(configuration: PolicyConfiguration, rules: [ClassificationRule], files: [String], portRules: [PortRule] = []) {
        self.configuration = configuration
        self.rules = rules
        self.files = files
        self.portRules = portRules
    }
}

extension ClassifyAction {
    /// What a matched rule set, for `rules explain`: `category=... mode=... options=[...]
    /// class=... interaction=...` (a class the configuration does not know is not set).
    func appliedDescription(priorityClassKnown: Bool) -> [String] {
        var applied: [String] = []
        if let category { applied.append("category=\(category.wireName)") }
        if let mode { applied.append("mode=\(mode.wireName)") }
        if let options { applied.append("options=[\(options.wireNames.joined(separator: " "))]") }
        if let priorityClassName, priorityClassKnown { applied.append("class=\(priorityClassName)") }
        if let interaction { applied.append("interaction=\(interaction.wireName)") }
        return applied
    }
}

extension CategoryOptions {
    /// The named options a category refuses, by the engine's validation.
    func refused(by category: Category) -> CategoryOptions {
        do {
            try SessionConfiguration.validate(category: category, options: self)
            return []
        } catch {
            var refused: CategoryOptions = []
            for (_, option) in CategoryOptions.named where isSuperset(of: option) {
                do { try SessionConfiguration.validate(category: category, options: option) } catch { refused.insert(option) }
            }
            return refused
        }
    }
}
