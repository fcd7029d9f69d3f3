/// Which way audio flows through a port or a route.
public enum Direction: String, Sendable, Equatable {
    case input, output
}

/// A node's port. Only the global's properties are needed, so ports are never bound.
public struct Port: Sendable, Equatable, Identifiable {
    public var id: GlobalID
    public var nodeID: GlobalID
    public var direction: Direction
    /// `audio.channel` ("FL", "MONO", ...); nil for ports without a position.
    public var channel: String?
    /// `port.monitor`: the output twin of a sink's input.
    public var isMonitor: Bool
    /// `port.name`.
    public var name: String
    public var properties: [String: String]

    public init(
        id: GlobalID, nodeID: GlobalID, direction: Direction, channel: String? = nil, isMonitor: Bool = false,
        name: String = "", properties: [String: String] = [:]
    ) {
        self.id = id
        self.nodeID = nodeID
        self.direction = direction
        self.channel = channel
        self.isMonitor = isMonitor
        self.name = name
        self.properties = properties
    }
}
