/// A link between an output port and an input port.
public struct Link: Sendable, Equatable, Identifiable {
    public var id: GlobalID
    public var outputNode: GlobalID
    public var outputPort: GlobalID
    public var inputNode: GlobalID
    public var inputPort: GlobalID
    public var state: LinkState
    public var properties: [String: String]

    public init(
        id: GlobalID, outputNode: GlobalID, outputPort: GlobalID, inputNode: GlobalID, inputPort: GlobalID,
        state: LinkState = .initial, properties: [String: String] = [:]
    ) {
        self.id = id
        self.outputNode = outputNode
        self.outputPort = outputPort
        self.inputNode = inputNode
        self.inputPort = inputPort
        self.state = state
        self.properties = properties
    }
}

/// `enum pw_link_state`.
public enum LinkState: Sendable, Equatable, CustomStringConvertible {
    case unlinked, initial, negotiating, allocating, paused, active
    case error(String)

    public var description: String {
        switch self {
        case .unlinked: "unlinked"
        case .initial: "init"
        case .negotiating: "negotiating"
        case .allocating: "allocating"
        case .paused: "paused"
        case .active: "active"
        case .error(let message): "error: \(message)"
        }
    }
}
