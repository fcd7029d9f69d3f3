/// Options of `setActive` (reference §4).
public struct SetActiveOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Valid only when deactivating: sessions this one interrupted get
    /// `interruption ended` with `shouldResume`.
    public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)

    public init?(wireName: String) {
        guard wireName == "notifyOthersOnDeactivation" else { return nil }
        self = .notifyOthersOnDeactivation
    }

    public var wireNames: [String] { contains(.notifyOthersOnDeactivation) ? ["notifyOthersOnDeactivation"] : [] }
}
