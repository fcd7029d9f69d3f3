import SessionPolicy

/// A problem found while reading a file's contents: the line and the reason. The file
/// name is added by whoever knows it (`RulesFile`), giving a `RulesDiagnostic`.
struct FormatProblem: Error, Hashable, Sendable {
    var line: Int
    var reason: String

    init(_ line: Int, _ reason: String) {
        self.line = line
        self.reason = reason
    }
}

extension SPAJSONValue {
    /// A wire name of an engine enum, with the known names in the message if unknown.
    func wireNamed<Value: WireNamed & CaseIterable>(_ type: Value.Type, what: String) throws(FormatProblem) -> Value {
        guard let text else {
            throw FormatProblem(line, "expected a \(what) name, found \(typeDescription)")
        }
        guard let result = Value(wireName: text) else {
            throw FormatProblem(line, "unknown \(what) '\(text)' (known: \(Value.allCases.map(\.wireName).joined(separator: ", ")))")
        }
        return result
    }

    /// An array of wire names.
    func list<Value: WireNamed & CaseIterable>(of type: Value.Type, what: String, key: String) throws(FormatProblem) -> [Value] {
        guard let elements else {
            throw FormatProblem(line, "\(key) expects an array of \(what) names, found \(typeDescription)")
        }
        var result: [Value] = []
        for element in elements {
            result.append(try element.wireNamed(Value.self, what: what))
        }
        return result
    }
}
