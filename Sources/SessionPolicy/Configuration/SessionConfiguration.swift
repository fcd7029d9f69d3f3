/// A validated category + mode + options, with the mode's effective behaviour and the
/// implied options worked out once. Rules, D-Bus and the CLI all build one of these, so
/// they reject the same things with the same error.
public struct SessionConfiguration: Hashable, Sendable {
    public let category: Category
    /// The mode asked for (reported back as set).
    public let mode: Mode
    /// The options asked for (reported back as set).
    public let options: CategoryOptions

    /// An incompatible mode behaves as `default` (not an error).
    public var effectiveMode: Mode { mode.isCompatible(with: category) ? mode : .default }

    /// Options in force: the ones set, plus those implied by options and by the mode.
    public var effectiveOptions: CategoryOptions {
        var result = options.withImpliedOptions
        result.formUnion(effectiveMode.impliedOptions.intersection(category.acceptedOptions))
        return result
    }

    /// Mixable sessions play along with others; ambient always mixes.
    public var isMixable: Bool {
        category.alwaysMixes || effectiveOptions.contains(.mixWithOthers)
    }

    /// Validates like `setCategory(_:mode:options:)`.
    /// - Throws: `badParam` for bits Apple does not define or options the category does not accept.
    public init(category: Category, mode: Mode = .default, options: CategoryOptions = []) throws(AudioSessionError) {
        try Self.validate(category: category, options: options)
        self.category = category
        self.mode = mode
        self.options = options
    }

    /// The default session: soloAmbient, default mode, no options.
    public static let `default` = try! SessionConfiguration(category: .soloAmbient)

    /// Which options a category accepts (reference §3). `mixWithOthers` carried inside
    /// `interruptSpokenAudioAndMixWithOthers` (0x11) or implied by `duckOthers` is not
    /// counted against the category.
    public static func validate(category: Category, options: CategoryOptions) throws(AudioSessionError) {
        guard CategoryOptions.all.isSuperset(of: options) else { throw .badParam }
        var explicit = options
        if options.contains(.interruptSpokenAudioAndMixWithOthers) {
            guard category.acceptedOptions.contains(.interruptSpokenAudioAndMixWithOthers) else { throw .badParam }
            explicit.subtract(.interruptSpokenAudioAndMixWithOthers)
        }
        if options.contains(.duckOthers) { explicit.remove(.mixWithOthers) }
        for (_, option) in CategoryOptions.named where explicit.contains(option) {
            guard category.acceptedOptions.contains(option) else { throw .badParam }
        }
    }

    /// Parses wire names and validates; unknown names are `badParam`.
    public init(categoryName: String, modeName: String = "default", optionNames: [String] = []) throws(AudioSessionError) {
        guard let category = Category(wireName: categoryName),
              let mode = Mode(wireName: modeName),
              let options = CategoryOptions(wireNames: optionNames)
        else { throw .badParam }
        try self.init(category: category, mode: mode, options: options)
    }
}
