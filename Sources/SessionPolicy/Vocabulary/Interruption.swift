/// Interruption notification type (reference §5). Note the inversion: began = 1, ended = 0.
public enum InterruptionType: UInt, CaseIterable, Hashable, Sendable, WireNamed {
    case ended = 0
    case began = 1
    public var wireName: String { self == .began ? "began" : "ended" }
}

/// Why an interruption began (reference §5). There is no 3.
public enum InterruptionReason: UInt, CaseIterable, Hashable, Sendable, WireNamed {
    case `default` = 0
    /// Deprecated by Apple.
    case appWasSuspended = 1
    case builtInMicMuted = 2
    case routeDisconnected = 4

    public var wireName: String {
        switch self {
        case .default: "default"
        case .appWasSuspended: "appWasSuspended"
        case .builtInMicMuted: "builtInMicMuted"
        case .routeDisconnected: "routeDisconnected"
        }
    }
}

/// Options of an `ended` interruption.
public struct InterruptionOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// A hint: media apps resume only when it is present.
    public static let shouldResume = InterruptionOptions(rawValue: 1)

    public init?(wireName: String) {
        guard wireName == "shouldResume" else { return nil }
        self = .shouldResume
    }
    public var wireNames: [String] { contains(.shouldResume) ? ["shouldResume"] : [] }
}

/// `silenceSecondaryAudioHint` type: begin = 1, end = 0.
public enum SilenceSecondaryAudioHintType: UInt, CaseIterable, Hashable, Sendable, WireNamed {
    case end = 0
    case begin = 1
    public var wireName: String { self == .begin ? "begin" : "end" }
}
