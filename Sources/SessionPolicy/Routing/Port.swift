/// Which way a port carries audio.
public enum PortDirection: String, Hashable, Sendable, CaseIterable, WireNamed {
    case input
    case output
    public var wireName: String { rawValue }
}

/// A port description (reference §6): one sink or source (or one route of a device).
public struct Port: Hashable, Sendable, CustomStringConvertible {
    /// Stable across restarts (e.g. `node.name` or device + route name).
    public var uid: String
    /// The backend's number for the device carrying it now (PipeWire node id, PulseAudio sink
    /// or source index).
    public var nodeID: UInt32
    public var name: String
    public var type: PortType
    public var direction: PortDirection
    public var channels: Int
    /// Ports of one physical device share it (HFP and A2DP of one headset: HFP wins).
    public var deviceID: String?
    public var hasHardwareVoiceCallProcessing: Bool
    /// The device's own rank among those present when the graph is first seen (PipeWire's
    /// `priority.session`): with no configured default, the highest is the default then.
    public var priority: Int

    public init(
        uid: String, nodeID: UInt32, name: String? = nil, type: PortType, direction: PortDirection,
        channels: Int = 2, deviceID: String? = nil, hasHardwareVoiceCallProcessing: Bool = false, priority: Int = 0
    ) {
        self.priority = priority
        self.uid = uid
        self.nodeID = nodeID
        self.name = name ?? uid
        self.type = type
        self.direction = direction
        self.channels = channels
        self.deviceID = deviceID
        self.hasHardwareVoiceCallProcessing = hasHardwareVoiceCallProcessing
    }

    public var description: String { "\(type.wireName):\(uid)" }

    /// The device carrying it now, with its direction.
    public var device: DeviceID { DeviceID(direction, nodeID) }
}

/// A route description: the inputs and outputs a session's streams are linked to.
public struct RouteDescription: Hashable, Sendable, CustomStringConvertible {
    public var inputs: [Port]
    public var outputs: [Port]
    public init(inputs: [Port] = [], outputs: [Port] = []) {
        self.inputs = inputs
        self.outputs = outputs
    }
    public static let empty = RouteDescription()
    public var isEmpty: Bool { inputs.isEmpty && outputs.isEmpty }
    public var description: String {
        "in[\(inputs.map(\.uid).joined(separator: ","))] out[\(outputs.map(\.uid).joined(separator: ","))]"
    }
}

/// `overrideOutputAudioPort` (playAndRecord only; lasts until the next route change).
public enum OutputOverride: String, Hashable, Sendable, CaseIterable, WireNamed {
    case none
    case speaker
    public var wireName: String { rawValue }
}
