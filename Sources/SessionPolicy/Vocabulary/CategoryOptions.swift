/// Category options (reference §3) with Apple's raw values.
///
/// Note `interruptSpokenAudioAndMixWithOthers` is 0x11: it contains the
/// `mixWithOthers` bit, exactly as in Apple's header.
public struct CategoryOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
    public static let duckOthers = CategoryOptions(rawValue: 0x2)
    /// Bluetooth HFP (Apple's `allowBluetooth`, 0x4 — not 0x100).
    public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
    public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
    public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 0x11)
    public static let allowBluetoothA2DP = CategoryOptions(rawValue: 0x20)
    public static let allowAirPlay = CategoryOptions(rawValue: 0x40)
    public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 0x80)

    /// Every named option with its wire name, in raw-value order.
    public static let named: [(name: String, option: CategoryOptions)] = [
        ("mixWithOthers", .mixWithOthers),
        ("duckOthers", .duckOthers),
        ("allowBluetooth", .allowBluetooth),
        ("defaultToSpeaker", .defaultToSpeaker),
        ("interruptSpokenAudioAndMixWithOthers", .interruptSpokenAudioAndMixWithOthers),
        ("allowBluetoothA2DP", .allowBluetoothA2DP),
        ("allowAirPlay", .allowAirPlay),
        ("overrideMutedMicrophoneInterruption", .overrideMutedMicrophoneInterruption),
    ]

    /// All bits Apple defines; other bits are `badParam`.
    public static let all = CategoryOptions(rawValue: 0x1 | 0x2 | 0x4 | 0x8 | 0x11 | 0x20 | 0x40 | 0x80)

    /// Parses one wire name (`mixWithOthers`).
    public init?(wireName: String) {
        guard let entry = Self.named.first(where: { $0.name == wireName }) else { return nil }
        self = entry.option
    }

    /// Parses a list of wire names; `nil` if any is unknown.
    public init?(wireNames: some Sequence<String>) {
        var result: CategoryOptions = []
        for name in wireNames {
            guard let option = CategoryOptions(wireName: name) else { return nil }
            result.insert(option)
        }
        self = result
    }

    /// The wire names of the options set, most specific first: 0x11 is reported as
    /// `interruptSpokenAudioAndMixWithOthers` only, not also as `mixWithOthers`.
    public var wireNames: [String] {
        var remaining = self
        var names: [String] = []
        for (name, option) in Self.named.sorted(by: { $0.option.rawValue.nonzeroBitCount > $1.option.rawValue.nonzeroBitCount })
        where remaining.contains(option) {
            names.append(name)
            remaining.subtract(option)
        }
        return Self.named.map(\.name).filter(names.contains)
    }

    /// Options switched on by other options: duckOthers and
    /// interruptSpokenAudioAndMixWithOthers imply mixWithOthers.
    public var withImpliedOptions: CategoryOptions {
        var result = self
        if contains(.duckOthers) || contains(.interruptSpokenAudioAndMixWithOthers) {
            result.insert(.mixWithOthers)
        }
        return result
    }

    /// True when the 0x10 bit of `interruptSpokenAudioAndMixWithOthers` is set.
    public var interruptsSpokenAudio: Bool { rawValue & 0x10 != 0 }
}
