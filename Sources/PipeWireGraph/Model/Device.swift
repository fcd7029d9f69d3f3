/// A device (an ALSA card, a Bluetooth headset): the owner of routes (jack, speaker, HDMI).
public struct Device: Sendable, Equatable, Identifiable {
    public var id: GlobalID
    /// `device.name`.
    public var name: String
    public var properties: [String: String]
    /// Every route the device has (`EnumRoute`), with its availability.
    public var enumRoutes: [Route]
    /// The routes in use per device index (`Route`).
    public var activeRoutes: [Route]

    public init(
        id: GlobalID, name: String, properties: [String: String] = [:], enumRoutes: [Route] = [],
        activeRoutes: [Route] = []
    ) {
        self.id = id
        self.name = name
        self.properties = properties
        self.enumRoutes = enumRoutes
        self.activeRoutes = activeRoutes
    }

    public var displayName: String { properties["device.description"] ?? properties["device.nick"] ?? name }
}

/// One `EnumRoute` / `Route` param of a device.
public struct Route: Sendable, Equatable {
    public var index: Int
    /// The device-internal index (card profile device) this route is active on; nil for `EnumRoute`.
    public var device: Int?
    public var direction: Direction
    public var name: String
    public var description: String
    public var available: RouteAvailability
    public var priority: Int
    /// The route's volumes (`Route` only; ALSA device volumes live here).
    public var props: NodeProps?

    public init(
        index: Int, device: Int? = nil, direction: Direction, name: String, description: String = "",
        available: RouteAvailability = .unknown, priority: Int = 0, props: NodeProps? = nil
    ) {
        self.index = index
        self.device = device
        self.direction = direction
        self.name = name
        self.description = description
        self.available = available
        self.priority = priority
        self.props = props
    }
}

/// `enum spa_param_availability`.
public enum RouteAvailability: String, Sendable, Equatable {
    case unknown, no, yes
}
