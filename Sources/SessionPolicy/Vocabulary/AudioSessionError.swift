/// The AVAudioSession error codes (reference §4) with Apple's numeric values, so
/// rules, D-Bus and the CLI report the same code for the same refusal.
public enum AudioSessionError: Int, Error, CaseIterable, Hashable, Sendable, WireNamed {
    case none = 0
    case mediaServicesFailed = 1_836_282_486
    case isBusy = 560_030_580
    case incompatibleCategory = 560_161_140
    case cannotInterruptOthers = 560_557_684
    case missingEntitlement = 1_701_737_535
    case siriIsRecording = 1_936_290_409
    case cannotStartPlaying = 561_015_905
    case cannotStartRecording = 561_145_187
    case badParam = -50
    case insufficientPriority = 561_017_449
    case resourceNotAvailable = 561_145_203
    case unspecified = 2_003_329_396
    case expiredSession = 561_210_739
    case sessionNotActive = 1_768_841_571

    /// Apple's numeric code (the `OSStatus`).
    public var code: Int { rawValue }

    public var wireName: String {
        switch self {
        case .none: "none"
        case .mediaServicesFailed: "mediaServicesFailed"
        case .isBusy: "isBusy"
        case .incompatibleCategory: "incompatibleCategory"
        case .cannotInterruptOthers: "cannotInterruptOthers"
        case .missingEntitlement: "missingEntitlement"
        case .siriIsRecording: "siriIsRecording"
        case .cannotStartPlaying: "cannotStartPlaying"
        case .cannotStartRecording: "cannotStartRecording"
        case .badParam: "badParam"
        case .insufficientPriority: "insufficientPriority"
        case .resourceNotAvailable: "resourceNotAvailable"
        case .unspecified: "unspecified"
        case .expiredSession: "expiredSession"
        case .sessionNotActive: "sessionNotActive"
        }
    }

    /// The four-character code Apple's value spells (`!pri`), or `nil` for `none` and `badParam`.
    public var fourCharacterCode: String? {
        guard rawValue > 0xFFFFFF else { return nil }
        let value = UInt32(rawValue)
        let bytes = [24, 16, 8, 0].map { UInt8((value >> UInt32($0)) & 0xFF) }
        return String(decoding: bytes, as: UTF8.self)
    }

    public init?(code: Int) { self.init(rawValue: code) }
}
