/// Port types (reference §6). `rawValue` is Apple's raw string ("MicrophoneWired",
/// "HDMIOutput"); `wireName` is the Swift spelling (`headsetMic`, `HDMI`).
public enum PortType: String, CaseIterable, Hashable, Sendable, WireNamed {
    case lineIn = "LineIn"
    case builtInMic = "MicrophoneBuiltIn"
    case headsetMic = "MicrophoneWired"
    case continuityMicrophone = "MicrophoneContinuity"
    case lineOut = "LineOut"
    case headphones = "Headphones"
    case bluetoothA2DP = "BluetoothA2DPOutput"
    case builtInReceiver = "Receiver"
    case builtInSpeaker = "Speaker"
    case HDMI = "HDMIOutput"
    case airPlay = "AirPlay"
    case bluetoothLE = "BluetoothLE"
    case bluetoothHFP = "BluetoothHFP"
    case usbAudio = "USBAudio"
    case carAudio = "CarAudio"
    case virtual = "Virtual"
    case PCI = "PCI"
    case fireWire = "FireWire"
    case displayPort = "DisplayPort"
    case AVB = "AVB"
    case thunderbolt = "Thunderbolt"

    public var wireName: String {
        switch self {
        case .lineIn: "lineIn"
        case .builtInMic: "builtInMic"
        case .headsetMic: "headsetMic"
        case .continuityMicrophone: "continuityMicrophone"
        case .lineOut: "lineOut"
        case .headphones: "headphones"
        case .bluetoothA2DP: "bluetoothA2DP"
        case .builtInReceiver: "builtInReceiver"
        case .builtInSpeaker: "builtInSpeaker"
        case .HDMI: "HDMI"
        case .airPlay: "airPlay"
        case .bluetoothLE: "bluetoothLE"
        case .bluetoothHFP: "bluetoothHFP"
        case .usbAudio: "usbAudio"
        case .carAudio: "carAudio"
        case .virtual: "virtual"
        case .PCI: "PCI"
        case .fireWire: "fireWire"
        case .displayPort: "displayPort"
        case .AVB: "AVB"
        case .thunderbolt: "thunderbolt"
        }
    }

    /// Outputs that take part in multiRoute (reference §1). The built-in speaker only
    /// when no other eligible output is connected.
    public var isMultiRouteEligible: Bool {
        switch self {
        case .usbAudio, .lineOut, .headphones, .HDMI, .builtInSpeaker: true
        default: false
        }
    }

    /// Built-in ports are never "newly plugged in"; last-in-wins prefers external ones.
    public var isBuiltIn: Bool {
        self == .builtInMic || self == .builtInSpeaker || self == .builtInReceiver
    }
}
