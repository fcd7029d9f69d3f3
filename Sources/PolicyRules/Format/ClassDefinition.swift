import SessionPolicy

/// One entry of `audiosession.classes`: defines a priority class or tunes a built-in one,
/// field by field (later files override single fields).
public struct ClassDefinition: Hashable, Sendable {
    public enum Key: String, CaseIterable, Sendable {
        /// Higher wins.
        case priority
        /// What an active session of this class does to lower classes.
        case towardLower = "toward-lower"
        /// What a newer session of this class does to an older one (desktop profile).
        case towardEqual = "toward-equal"
    }

    public var name: String
    public var priority: Int?
    public var towardLower: Interaction?
    public var towardEqual: Interaction?
    public var line: Int
    public var lines: [Key: Int]

    init(name: String, _ value: SPAJSONValue, line: Int) throws(FormatProblem) {
        self.name = name
        self.line = line
        self.lines = [:]
        guard !name.isEmpty else { throw FormatProblem(line, "a priority class needs a name") }
        guard let members = value.members else {
            throw FormatProblem(value.line, "class '\(name)' expects an object, found \(value.typeDescription)")
        }
        for member in members {
            guard let key = Key(rawValue: member.key) else {
                throw FormatProblem(member.line, "unknown key '\(member.key)' in class '\(name)' (known: \(Key.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            lines[key] = member.line
            switch key {
            case .priority:
                guard let priority = member.value.integer else {
                    throw FormatProblem(member.value.line, "priority expects a whole number, found \(member.value.typeDescription)")
                }
                self.priority = priority
            case .towardLower: towardLower = try member.value.wireNamed(Interaction.self, what: "interaction")
            case .towardEqual: towardEqual = try member.value.wireNamed(Interaction.self, what: "interaction")
            }
        }
    }
}
