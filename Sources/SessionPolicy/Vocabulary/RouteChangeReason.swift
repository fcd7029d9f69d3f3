/// Why a route changed (reference §5). There is **no 5**: never decode these by position.
public enum RouteChangeReason: UInt, CaseIterable, Hashable, Sendable, WireNamed {
    case unknown = 0
    case newDeviceAvailable = 1
    case oldDeviceUnavailable = 2
    case categoryChange = 3
    case override = 4
    case wakeFromSleep = 6
    case noSuitableRouteForCategory = 7
    case routeConfigurationChange = 8

    public var wireName: String {
        switch self {
        case .unknown: "unknown"
        case .newDeviceAvailable: "newDeviceAvailable"
        case .oldDeviceUnavailable: "oldDeviceUnavailable"
        case .categoryChange: "categoryChange"
        case .override: "override"
        case .wakeFromSleep: "wakeFromSleep"
        case .noSuitableRouteForCategory: "noSuitableRouteForCategory"
        case .routeConfigurationChange: "routeConfigurationChange"
        }
    }
}
