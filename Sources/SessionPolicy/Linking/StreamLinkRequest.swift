/// What a stream asks of the linking policy: its direction and, optionally, a target it named.
public struct StreamLinkRequest: Hashable, Sendable {
    public var direction: StreamDirection
    /// The target the app or user named, strongest first: the `target.object` metadata a
    /// mixer (pavucontrol, `pactl move-sink-input`) writes for this stream, else the node's own
    /// `target.object`, else the legacy `node.target`. A node name, or an object serial / id in decimal.
    public var requestedTarget: String?
    /// `node.dont-reconnect`: when its named target goes away, leave the stream unlinked
    /// instead of moving it to the default.
    public var dontReconnect: Bool

    public init(direction: StreamDirection, requestedTarget: String? = nil, dontReconnect: Bool = false) {
        self.direction = direction
        self.requestedTarget = requestedTarget
        self.dontReconnect = dontReconnect
    }
}
