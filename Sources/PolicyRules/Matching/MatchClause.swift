/// One object of a rule's `matches` array: every key must match (PipeWire: "all keys
/// must match the value"). A rule matches when any one of its clauses does.
public struct MatchClause: Hashable, Sendable {
    public struct Condition: Hashable, Sendable {
        public var key: String
        public var pattern: PropertyPattern
        public var line: Int

        public init(key: String, pattern: PropertyPattern, line: Int) {
            self.key = key
            self.pattern = pattern
            self.line = line
        }
    }

    public var conditions: [Condition]
    public var line: Int

    /// An empty clause never matches, in PipeWire too; the format rejects it.
    public init(conditions: [Condition], line: Int) {
        self.conditions = conditions
        self.line = line
    }

    public func matches(_ properties: [String: String]) -> Bool {
        !conditions.isEmpty && conditions.allSatisfy { $0.pattern.matches(properties[$0.key]) }
    }
}

/// Why a clause matched: each condition with the value it saw.
public struct MatchedCondition: Hashable, Sendable, CustomStringConvertible {
    public var key: String
    public var pattern: String
    /// The property's value; `nil` when absent.
    public var value: String?

    public var description: String {
        "\(key) = \(pattern) (\(value.map { "is \"\($0)\"" } ?? "absent"))"
    }
}

extension MatchClause {
    /// The conditions with the values they were tested against, for `rules explain`.
    public func explain(_ properties: [String: String]) -> [MatchedCondition] {
        conditions.map { MatchedCondition(key: $0.key, pattern: $0.pattern.description, value: properties[$0.key]) }
    }
}
