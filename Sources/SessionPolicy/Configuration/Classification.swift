/// What the rules decide about a stream or app: its session's category, mode, options,
/// priority class and how it treats lower classes.
public struct Classification: Hashable, Sendable {
    public var category: Category
    public var mode: Mode
    public var options: CategoryOptions
    public var priorityClass: PriorityClass
    /// Overrides `priorityClass.towardLower` for this session when set.
    public var interaction: Interaction?

    public init(
        category: Category = .soloAmbient, mode: Mode = .default, options: CategoryOptions = [],
        priorityClass: PriorityClass = .media, interaction: Interaction? = nil
    ) {
        self.category = category
        self.mode = mode
        self.options = options
        self.priorityClass = priorityClass
        self.interaction = interaction
    }

    /// The interaction toward lower classes that applies.
    public var effectiveInteraction: Interaction { interaction ?? priorityClass.towardLower }

    /// Checks category/mode/options with the same rules as `setCategory`.
    public func validated() throws(AudioSessionError) -> SessionConfiguration {
        try SessionConfiguration(category: category, mode: mode, options: options)
    }

    /// A session nobody configured: soloAmbient, media class.
    public static let unconfigured = Classification()
}
