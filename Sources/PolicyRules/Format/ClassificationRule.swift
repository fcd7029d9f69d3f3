/// One `{ matches = [ ... ] actions = { classify = { ... } } }` of `audiosession.rules`,
/// PipeWire's match-rule shape: if any clause of `matches` matches the stream's
/// properties, the actions apply.
public struct ClassificationRule: Hashable, Sendable {
    public var matches: [MatchClause]
    public var classify: ClassifyAction
    public var origin: RuleReference

    public init(matches: [MatchClause], classify: ClassifyAction, origin: RuleReference) {
        self.matches = matches
        self.classify = classify
        self.origin = origin
    }

    /// The first clause that matches, if any.
    public func firstMatchingClause(_ properties: [String: String]) -> MatchClause? {
        matches.first { $0.matches(properties) }
    }

    enum Key: String, CaseIterable { case matches, actions }
    enum ActionKey: String, CaseIterable { case classify }

    init(_ value: SPAJSONValue, file: String) throws(FormatProblem) {
        guard let members = value.members else {
            throw FormatProblem(value.line, "a rule must be an object with matches and actions, found \(value.typeDescription)")
        }
        var matches: [MatchClause]?
        var classify: ClassifyAction?
        for member in members {
            switch Key(rawValue: member.key) {
            case .matches: matches = try Self.clauses(member.value)
            case .actions: classify = try Self.actions(member.value)
            case nil:
                throw FormatProblem(member.line, "unknown key '\(member.key)' in a rule (known: matches, actions)")
            }
        }
        guard let matches else { throw FormatProblem(value.line, "rule has no 'matches'") }
        guard let classify else { throw FormatProblem(value.line, "rule has no 'actions'") }
        self.init(matches: matches, classify: classify, origin: RuleReference(file: file, line: value.line))
    }

    static func clauses(_ value: SPAJSONValue) throws(FormatProblem) -> [MatchClause] {
        guard let elements = value.elements else {
            throw FormatProblem(value.line, "matches expects an array of objects, found \(value.typeDescription)")
        }
        guard !elements.isEmpty else { throw FormatProblem(value.line, "matches is empty, so the rule can never apply") }
        var clauses: [MatchClause] = []
        for element in elements {
            guard let members = element.members else {
                throw FormatProblem(element.line, "each entry of matches must be an object of property = pattern, found \(element.typeDescription)")
            }
            guard !members.isEmpty else {
                throw FormatProblem(element.line, "empty match object {} never matches (PipeWire needs at least one property)")
            }
            var conditions: [MatchClause.Condition] = []
            for member in members {
                do {
                    conditions.append(.init(key: member.key, pattern: try PropertyPattern(member.value), line: member.line))
                } catch {
                    throw FormatProblem(member.value.line, "\(member.key): \(error.reason)")
                }
            }
            clauses.append(MatchClause(conditions: conditions, line: element.line))
        }
        return clauses
    }

    static func actions(_ value: SPAJSONValue) throws(FormatProblem) -> ClassifyAction {
        guard let members = value.members else {
            throw FormatProblem(value.line, "actions expects an object, found \(value.typeDescription)")
        }
        var classify: ClassifyAction?
        for member in members {
            switch ActionKey(rawValue: member.key) {
            case .classify: classify = try ClassifyAction(member.value)
            case nil:
                throw FormatProblem(member.line, "unknown action '\(member.key)' (known: classify)")
            }
        }
        guard let classify else { throw FormatProblem(value.line, "actions has no 'classify'") }
        return classify
    }
}

/// Where a rule was written: `file:line`, how `rules explain` names it.
public struct RuleReference: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(file):\(line)" }
}
