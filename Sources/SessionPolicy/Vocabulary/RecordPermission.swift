/// Record permission per app (reference §8), with Apple's four-character values.
public enum RecordPermission: UInt32, CaseIterable, Hashable, Sendable, WireNamed {
    case undetermined = 1_970_168_948  // 'undt'
    case denied = 1_684_369_017  // 'deny'
    case granted = 1_735_552_628  // 'grnt'

    public var wireName: String {
        switch self {
        case .undetermined: "undetermined"
        case .denied: "denied"
        case .granted: "granted"
        }
    }

    /// Until granted, a recording app records only silence.
    public var capturesSilence: Bool { self != .granted }
}
