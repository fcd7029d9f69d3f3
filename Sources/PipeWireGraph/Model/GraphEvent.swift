/// One change of the graph, delivered in order after the snapshot has been updated.
public enum GraphEvent: Sendable, Equatable {
    /// The connection is (re)established; objects follow.
    case connected
    /// The first registry burst (and the objects' info and params) is complete.
    case initialSyncComplete
    /// The PipeWire daemon is gone: the snapshot is now empty; reconnecting with backoff.
    case disconnected(reason: String)
    /// A node's registry entry, a round-trip before its description (``added(_:)``): only what
    /// the server copies into the entry (class, role, app, client, name), and it is not in the
    /// snapshot yet. A policy may act on it ahead of time; the node's ``added(_:)`` follows,
    /// unless it goes first (``announcementWithdrawn(_:)``).
    case announced(Node)
    /// An announced node went before its description came: it was never added.
    case announcementWithdrawn(GlobalID)
    case added(GraphObject)
    case changed(GraphObject)
    /// Carries the last known value.
    case removed(GraphObject)
    /// One metadata `property` event (`key == nil`: all keys of `subject` were cleared).
    case metadataChanged(name: String, subject: GlobalID, key: String?, value: String?)
    /// A metered node (``PipeWireGraph/startMeter(node:threshold:)``) became audible (its peak
    /// above the threshold) or silent. Changes only.
    case levelChanged(node: GlobalID, audible: Bool)
    /// While the clocks are sampled (``PipeWireGraph/sampleClocks()``): the driver cycles of one
    /// profile the server sent, oldest first (one or more per running driver).
    case clocksSampled([DriverCycle])
}

public enum GraphObject: Sendable, Equatable {
    case client(Client)
    case node(Node)
    case port(Port)
    case link(Link)
    case device(Device)
    case metadata(Metadata)

    public var id: GlobalID {
        switch self {
        case .client(let object): object.id
        case .node(let object): object.id
        case .port(let object): object.id
        case .link(let object): object.id
        case .device(let object): object.id
        case .metadata(let object): object.id
        }
    }
}
