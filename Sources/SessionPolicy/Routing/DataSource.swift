/// A port's data source (reference §6): on the desktop, one of its card's routes of the port's
/// direction — the internal microphone, a headset's, a line in, a front or rear jack. Selecting
/// one switches the card's route. Polar patterns: none (no card reports them).
public struct DataSource: Hashable, Sendable, CustomStringConvertible {
    /// The route's number on its card (PipeWire's `EnumRoute` index, a PulseAudio port's index).
    public var id: UInt32
    public var name: String
    public var location: Location?
    public var orientation: Orientation?

    public init(id: UInt32, name: String, location: Location? = nil, orientation: Orientation? = nil) {
        self.id = id
        self.name = name
        self.location = location
        self.orientation = orientation
    }

    public var description: String { "\(id):\(name)" }

    /// `AVAudioSession.Location`.
    public enum Location: String, Hashable, Sendable, CaseIterable, WireNamed {
        case upper, lower
        public var wireName: String { rawValue }
    }

    /// `AVAudioSession.Orientation`.
    public enum Orientation: String, Hashable, Sendable, CaseIterable, WireNamed {
        case top, bottom, front, back, left, right
        public var wireName: String { rawValue }
    }
}

/// A device's data sources as its backend reports them: the same for every port of the device
/// (each route of a card is a port of its own, all on one node), so kept by device, apart from
/// the ports — a card switching its route is not a change of any port.
public struct DeviceDataSources: Hashable, Sendable {
    /// The card's routes of the device's direction that can be chosen now.
    public var sources: [DataSource]
    /// The route the card has active for the device now, if it is one of ``sources``.
    public var selected: UInt32?

    public init(sources: [DataSource], selected: UInt32?) {
        self.sources = sources
        self.selected = selected
    }
}
