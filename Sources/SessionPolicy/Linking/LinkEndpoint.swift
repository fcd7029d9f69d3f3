/// A device node a stream can be linked to: a sink for playback, a source for capture.
///
/// Only what the linking decision needs; the daemon builds these from the graph.
public struct LinkEndpoint: Hashable, Sendable {
    /// The graph's id of the node (PipeWire global id).
    public var id: UInt32
    /// `node.name`, what `target.object` and the `default` metadata name.
    public var name: String
    /// `object.serial`, which `target.object` may also carry.
    public var serial: UInt64?
    public var direction: StreamDirection
    /// `priority.session`: the tie-breaker when the user configured no default (higher wins).
    public var priority: Int

    public init(id: UInt32, name: String, serial: UInt64? = nil, direction: StreamDirection, priority: Int = 0) {
        self.id = id
        self.name = name
        self.serial = serial
        self.direction = direction
        self.priority = priority
    }
}

/// Which way audio flows through a stream, seen from the application.
public enum StreamDirection: String, Hashable, Sendable, CaseIterable {
    /// The app plays: its output is linked into a sink.
    case playback
    /// The app records: a source's output is linked into it.
    case capture
}
