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
        var properties = properties
        if properties["media.role"]?.isEmpty == true { properties["media.role"] = nil }
        var result = Classification.unconfigured
        var matched: [RuleMatch] = []
        var origins: [StreamClassification.Field: RuleReference] = [:]
        for rule in rules {
            guard let clause = rule.firstMatchingClause(properties) else { continue }
            let action = rule.classify
            var applied: [String] = []
            if let category = action.category {
                result.category = category
                result.mode = action.mode ?? .default
                result.options = action.options ?? []
                origins[.category] = rule.origin
                origins[.mode] = rule.origin
                origins[.options] = rule.origin
                applied.append("category=\(category.wireName)")
            } else {
                if let mode = action.mode { result.mode = mode; origins[.mode] = rule.origin }
                if let options = action.options { result.options = options; origins[.options] = rule.origin }
            }
            if let mode = action.mode { applied.append("mode=\(mode.wireName)") }
            if let options = action.options { applied.append("options=[\(options.wireNames.joined(separator: " "))]") }
            if let name = action.priorityClassName, let priorityClass = configuration.priorityClass(named: name) {
                result.priorityClass = priorityClass
                origins[.priorityClass] = rule.origin
                applied.append("class=\(name)")
            }
            if let interaction = action.interaction {
                result.interaction = interaction
                origins[.interaction] = rule.origin
                applied.append("interaction=\(interaction.wireName)")
            }
            matched.append(RuleMatch(rule: rule.origin, clauseLine: clause.line, conditions: clause.explain(properties), applied: applied))
        }
        var notes: [String] = []
        let refused = result.options.refused(by: result.category)
        if !refused.isEmpty {
            notes.append("dropped option \(refused.wireNames.joined(separator: ", ")): category \(result.category.wireName) does not accept it")
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
        classify(properties: ["media.role": "Communication"]).classification
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
