/// What one rules file says, read and checked on its own. Files are combined by
/// `RuleSet.build`, which also checks what needs all of them (class names, limits).
public struct RulesFile: Hashable, Sendable {
    /// The sections a file may have; anything else at the top level is an error.
    public enum Section: String, CaseIterable, Sendable {
        /// Knobs, key by key (`SettingKey`).
        case settings = "audiosession.settings"
        /// Priority classes, class by class and field by field (`ClassDefinition`).
        case classes = "audiosession.classes"
        /// Classification rules, applied in order (`ClassificationRule`).
        case rules = "audiosession.rules"
        /// Port type rules for sinks and sources (`PortRule`).
        case portRules = "audiosession.port-rules"
    }

    public struct Setting: Hashable, Sendable {
        public var key: SettingKey
        public var value: SettingValue
        public var line: Int
    }

    public var path: String
    public var settings: [Setting] = []
    public var classes: [ClassDefinition] = []
    public var rules: [ClassificationRule] = []
    public var portRules: [PortRule] = []

    /// Parses `text` as the file at `path`; throws every problem found (a syntax error
    /// stops the file; otherwise each entry is checked independently).
    public init(path: String, text: String) throws(RulesError) {
        self.path = path
        let document: SPAJSONValue
        do {
            document = try SPAJSONReader.read(text, file: path)
        } catch {
            throw RulesError([error])
        }
        var problems: [FormatProblem] = []
        for member in document.members ?? [] {
            guard let section = Section(rawValue: member.key) else {
                problems.append(FormatProblem(member.line, "unknown section '\(member.key)' (known: \(Section.allCases.map(\.rawValue).joined(separator: ", ")))"))
                continue
            }
            switch section {
            case .settings: readSettings(member.value, into: &problems)
            case .classes: readClasses(member.value, into: &problems)
            case .rules: readRules(member.value, into: &problems)
            case .portRules: readPortRules(member.value, into: &problems)
            }
        }
        if !problems.isEmpty {
            throw RulesError(problems.sorted { $0.line < $1.line }.map {
                RulesDiagnostic(file: path, line: $0.line, reason: $0.reason)
            })
        }
    }

    private mutating func readSettings(_ value: SPAJSONValue, into problems: inout [FormatProblem]) {
        guard let members = value.members else {
            problems.append(FormatProblem(value.line, "\(Section.settings.rawValue) expects an object, found \(value.typeDescription)"))
            return
        }
        for member in members {
            guard let key = SettingKey(rawValue: member.key) else {
                problems.append(FormatProblem(member.line, "unknown setting '\(member.key)' (known: \(SettingKey.allCases.map(\.rawValue).joined(separator: ", ")))"))
                continue
            }
            do {
                settings.append(Setting(key: key, value: try key.parse(member.value), line: member.line))
            } catch {
                problems.append(error)
            }
        }
    }

    private mutating func readClasses(_ value: SPAJSONValue, into problems: inout [FormatProblem]) {
        guard let members = value.members else {
            problems.append(FormatProblem(value.line, "\(Section.classes.rawValue) expects an object of classes, found \(value.typeDescription)"))
            return
        }
        for member in members {
            do {
                classes.append(try ClassDefinition(name: member.key, member.value, line: member.line))
            } catch {
                problems.append(error)
            }
        }
    }

    private mutating func readPortRules(_ value: SPAJSONValue, into problems: inout [FormatProblem]) {
        guard let elements = value.elements else {
            problems.append(FormatProblem(value.line, "\(Section.portRules.rawValue) expects an array of rules, found \(value.typeDescription)"))
            return
        }
        for element in elements {
            do {
                portRules.append(try PortRule(element, file: path))
            } catch {
                problems.append(error)
            }
        }
    }

    private mutating func readRules(_ value: SPAJSONValue, into problems: inout [FormatProblem]) {
        guard let elements = value.elements else {
            problems.append(FormatProblem(value.line, "\(Section.rules.rawValue) expects an array of rules, found \(value.typeDescription)"))
            return
        }
        for element in elements {
            do {
                rules.append(try ClassificationRule(element, file: path))
            } catch {
                problems.append(error)
            }
        }
    }
}
