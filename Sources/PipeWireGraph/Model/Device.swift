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
    /// Every profile the device has (`EnumProfile`): a Bluetooth headset's `a2dp-sink` and
    /// `headset-head-unit`, a card's analog and HDMI configurations. Only one is active, and
    /// only its nodes exist.
    public var profiles: [DeviceProfile]
    /// The active profile (`Profile`); nil until read, or for a device without profiles.
    public var activeProfile: DeviceProfile?

    public init(
        id: GlobalID, name: String, properties: [String: String] = [:], enumRoutes: [Route] = [],
        activeRoutes: [Route] = [], profiles: [DeviceProfile] = [], activeProfile: DeviceProfile? = nil
    ) {
        self.id = id
        self.name = name
        self.properties = properties
        self.enumRoutes = enumRoutes
        self.activeRoutes = activeRoutes
        self.profiles = profiles
        self.activeProfile = activeProfile
    }

    /// The routes of the active profile: a route that names its profiles belongs to those
    /// only (a headset's `EnumRoute` lists the routes of every profile); one that names none,
    /// or a device whose profile is not known, keeps every route.
    public var routesOfActiveProfile: [Route] {
        guard let active = activeProfile else { return enumRoutes }
        return enumRoutes.filter { $0.profiles.isEmpty || $0.profiles.contains(active.index) }
    }

    /// The profiles a route belongs to, by `EnumProfile` entry.
    public func profiles(of route: Route) -> [DeviceProfile] {
        profiles.filter { route.profiles.contains($0.index) }
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
    /// The profiles (`EnumProfile` indices) the route belongs to; empty when it does not say.
    public var profiles: [Int]
    /// The card profile devices it serves (a node's `card.profile.device`); empty when it does not
    /// say. A card with several sinks in one profile (a laptop's UCM `HiFi`: speaker and
    /// headphones on one, each HDMI output on its own) lists each route under its own.
    public var devices: [Int]

    public init(
        index: Int, device: Int? = nil, direction: Direction, name: String, description: String = "",
        available: RouteAvailability = .unknown, priority: Int = 0, props: NodeProps? = nil, profiles: [Int] = [],
        devices: [Int] = []
    ) {
        self.index = index
        self.device = device
        self.direction = direction
        self.name = name
        self.description = description
        self.available = available
        self.priority = priority
        self.props = props
        self.profiles = profiles
        self.devices = devices
    }
}

/// One `EnumProfile` / `Profile` param of a device.
public struct DeviceProfile: Sendable, Equatable {
    public var index: Int
    /// `off`, `a2dp-sink`, `headset-head-unit`, `output:analog-stereo+input:analog-stereo`, ...
    public var name: String
    public var description: String
    public var available: RouteAvailability
    public var priority: Int
    /// `Profile` only: the user chose it, and a session manager restores it.
    public var save: Bool

    public init(
        index: Int, name: String, description: String = "", available: RouteAvailability = .unknown, priority: Int = 0,
        save: Bool = false
    ) {
        self.index = index
        self.name = name
        self.description = description
        self.available = available
        self.priority = priority
        self.save = save
    }
}

/// What one enumeration of a device's params brought: routes or profiles.
struct DeviceParams {
    var routes: [Route] = []
    var profiles: [DeviceProfile] = []
}

/// `enum spa_param_availability`.
public enum RouteAvailability: String, Sendable, Equatable {
    case unknown, no, yes
}
