import SessionPolicy

/// The rules' verdict on one stream, with the reasons: which rules matched, through which
/// clause and property values, and which rule decided each part. `rules explain` prints it.
public struct StreamClassification: Hashable, Sendable {
    /// A part of a classification, as `classify` names it.
    public typealias Field = ClassifyAction.Key

    /// What the engine gets.
    public var classification: Classification
    /// Every rule that matched, in the order applied.
    public var matchedRules: [RuleMatch]
    /// The rule that last set each part; parts no rule set are absent (engine default).
    public var origins: [Field: RuleReference]
    /// Adjustments made after the rules ran (an option the final category refuses).
    public var notes: [String]

    /// One line per fact, for `rules explain`.
    public var explanation: [String] {
        var lines: [String] = []
        let c = classification
        let options = c.options.wireNames.isEmpty ? "[]" : "[ " + c.options.wireNames.joined(separator: " ") + " ]"
        lines.append("category \(c.category.wireName), mode \(c.mode.wireName), options \(options), class \(c.priorityClass.name), interaction \(c.effectiveInteraction.wireName)")
        if matchedRules.isEmpty { lines.append("no rule matched: engine defaults") }
        for match in matchedRules {
            lines.append("rule \(match.rule) matched (clause at line \(match.clauseLine): \(match.conditions.map(\.description).joined(separator: ", "))) and set \(match.applied.joined(separator: ", "))")
        }
        for field in Field.allCases {
            if let origin = origins[field] { lines.append("\(field.rawValue) from \(origin)") }
        }
        lines.append(contentsOf: notes)
        return lines
    }
}

/// One rule that matched a stream.
public struct RuleMatch: Hashable, Sendable {
    public var rule: RuleReference
    /// Line of the `matches` object that matched.
    public var clauseLine: Int
    public var conditions: [MatchedCondition]
    /// `key=value` for each part the rule's action set.
    public var applied: [String]
}
