import SessionBus
import SessionPolicy

/// A port of a route (`AVAudioSessionPortDescription`): what the daemon reports as `(sssu)`.
public struct PortDescription: Sendable, Hashable, CustomStringConvertible {
    /// Stable identifier (the PipeWire node name).
    public var uid: String
    public var portName: String
    /// Known types carry Apple's raw string; an unknown one (a newer daemon) is `nil`.
    public var portType: PortType?
    public var channels: Int

    public init(uid: String, portName: String, portType: PortType?, channels: Int) {
        self.uid = uid
        self.portName = portName
        self.portType = portType
        self.channels = channels
    }

    init?(_ value: BusValue) {
        guard let fields = value.structureValue, fields.count == 4, let uid = fields[0].stringValue,
            let name = fields[1].stringValue, let type = fields[2].stringValue, let channels = fields[3].uint32Value
        else { return nil }
        self.init(uid: uid, portName: name, portType: PortType(wireName: type), channels: Int(channels))
    }

    static func list(_ value: BusValue?) -> [PortDescription] {
        value?.arrayValue?.compactMap(PortDescription.init) ?? []
    }

    public var description: String { "\(portType?.wireName ?? "unknown"):\(uid)" }
}

/// A data source of a port (`AVAudioSessionDataSourceDescription`): one of its card's routes
/// (the internal microphone, a headset's, a front or rear jack), as `(usss)`.
public struct DataSourceDescription: Sendable, Hashable, CustomStringConvertible {
    public var dataSourceID: UInt32
    public var dataSourceName: String
    public var location: DataSource.Location?
    public var orientation: DataSource.Orientation?
    /// No card reports polar patterns: always empty.
    public var supportedPolarPatterns: [String] { [] }

    public init(dataSourceID: UInt32, dataSourceName: String, location: DataSource.Location? = nil, orientation: DataSource.Orientation? = nil) {
        self.dataSourceID = dataSourceID
        self.dataSourceName = dataSourceName
        self.location = location
        self.orientation = orientation
    }

    init?(_ value: BusValue) {
        guard let fields = value.structureValue, fields.count == 4, let id = fields[0].uint32Value,
            let name = fields[1].stringValue, let location = fields[2].stringValue, let orientation = fields[3].stringValue
        else { return nil }
        self.init(
            dataSourceID: id, dataSourceName: name, location: DataSource.Location(wireName: location),
            orientation: DataSource.Orientation(wireName: orientation))
    }

    static func list(_ value: BusValue?) -> [DataSourceDescription] {
        value?.arrayValue?.compactMap(DataSourceDescription.init) ?? []
    }

    public var description: String { "\(dataSourceID):\(dataSourceName)" }
}

/// A route (`AVAudioSessionRouteDescription`): the inputs and outputs a session plays through.
public struct RouteDescription: Sendable, Hashable, CustomStringConvertible {
    public var inputs: [PortDescription]
    public var outputs: [PortDescription]

    public init(inputs: [PortDescription] = [], outputs: [PortDescription] = []) {
        self.inputs = inputs
        self.outputs = outputs
    }

    init(_ value: BusValue?) {
        let fields = value?.structureValue ?? []
        self.init(
            inputs: PortDescription.list(fields.first), outputs: PortDescription.list(fields.count > 1 ? fields[1] : nil))
    }

    public var description: String {
        "in[\(inputs.map(\.uid).joined(separator: ","))] out[\(outputs.map(\.uid).joined(separator: ","))]"
    }
}
