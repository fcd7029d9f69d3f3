import SessionPolicy

/// The `classify = { ... }` action of a rule: the parts of a classification it sets.
/// Unset parts keep what earlier rules decided.
///
/// Setting `category` also resets `mode` and `options` to their defaults unless the same
/// action sets them: options are not sticky across category changes (AVAudioSession).
public struct ClassifyAction: Hashable, Sendable {
    public enum Key: String, CaseIterable, Sendable {
        case category, mode, options
        /// The priority class, by name (`media`, `communication`, or one defined in
        /// `audiosession.classes`).
        case priorityClass = "class"
        /// `mix` | `duck` | `interrupt` (or WirePlumber's `cork`): overrides the class's
        /// `toward-lower` for this session.
        case interaction
    }

    public var category: Category?
    public var mode: Mode?
    public var options: CategoryOptions?
    public var priorityClassName: String?
    public var interaction: Interaction?
    /// Line of each key, for messages about it.
    public var lines: [Key: Int]

    public init(
        category: Category? = nil, mode: Mode? = nil, options: CategoryOptions? = nil,
        priorityClassName: String? = nil, interaction: Interaction? = nil, lines: [Key: Int] = [:]
    ) {
        self.category = category
        self.mode = mode
        self.options = options
        self.priorityClassName = priorityClassName
        self.interaction = interaction
        self.lines = lines
    }

    /// Reads and validates the action object. Category and options are checked together
    /// with the engine's own `SessionConfiguration.validate`, so an option the category
    /// does not accept is refused here exactly as `setCategory` refuses it (`badParam`).
    init(_ value: SPAJSONValue) throws(FormatProblem) {
        guard let members = value.members else {
            throw FormatProblem(value.line, "classify expects an object, found \(value.typeDescription)")
        }
        guard !members.isEmpty else { throw FormatProblem(value.line, "classify sets nothing") }
        self.init()
        for member in members {
            guard let key = Key(rawValue: member.key) else {
                throw FormatProblem(member.line, "unknown key '\(member.key)' in classify (known: \(Key.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            lines[key] = member.line
            let value = member.value
            switch key {
            case .category: category = try value.wireNamed(Category.self, what: "category")
            case .mode: mode = try value.wireNamed(Mode.self, what: "mode")
            case .options: options = try Self.options(value)
            case .priorityClass:
                guard let name = value.text, !name.isEmpty else {
                    throw FormatProblem(value.line, "class expects a priority class name, found \(value.typeDescription)")
                }
                priorityClassName = name
            case .interaction: interaction = try value.wireNamed(Interaction.self, what: "interaction")
            }
        }
        if let category {
            try Self.check(category: category, options: options ?? [], line: lines[.options] ?? lines[.category] ?? value.line)
        }
    }

    static func options(_ value: SPAJSONValue) throws(FormatProblem) -> CategoryOptions {
        guard let elements = value.elements else {
            throw FormatProblem(value.line, "options expects an array of option names, found \(value.typeDescription)")
        }
        var result: CategoryOptions = []
        for element in elements {
            guard let name = element.text else {
                throw FormatProblem(element.line, "expected an option name, found \(element.typeDescription)")
            }
            guard let option = CategoryOptions(wireName: name) else {
                throw FormatProblem(element.line, "unknown option '\(name)' (known: \(CategoryOptions.named.map(\.name).joined(separator: ", ")))")
            }
            result.insert(option)
        }
        return result
    }

    /// The engine's validation, with the offending option named.
    static func check(category: Category, options: CategoryOptions, line: Int) throws(FormatProblem) {
        do {
            try SessionConfiguration.validate(category: category, options: options)
        } catch {
            let refused = CategoryOptions.named.filter { entry in
                guard options.isSuperset(of: entry.option) else { return false }
                do { try SessionConfiguration.validate(category: category, options: entry.option) } catch { return true }
                return false
            }.map(\.name)
            let what = switch refused.count {
            case 0: "these options together"
            case 1: "option '\(refused[0])'"
            default: "options " + refused.map { "'\($0)'" }.joined(separator: ", ")
            }
            throw FormatProblem(line, "category '\(category.wireName)' does not accept \(what) (\(error.wireName), \(error.code))")
        }
    }
}
