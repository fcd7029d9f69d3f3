/// One problem in a rules file: where it is and exactly what is wrong.
///
/// Printed as `file:line: reason`, the format compilers use, so editors can jump to it.
public struct RulesDiagnostic: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based; `nil` when the problem is the file as a whole (unreadable).
    public var line: Int?
    public var reason: String

    public init(file: String, line: Int?, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String {
        if let line { "\(file):\(line): \(reason)" } else { "\(file): \(reason)" }
    }
}

/// Why a rule set could not be built: every problem found, in file and line order.
/// A rule set with any diagnostic is never used, not even in part.
public struct RulesError: Error, Hashable, Sendable, CustomStringConvertible {
    public var diagnostics: [RulesDiagnostic]

    public init(_ diagnostics: [RulesDiagnostic]) {
        self.diagnostics = diagnostics
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
