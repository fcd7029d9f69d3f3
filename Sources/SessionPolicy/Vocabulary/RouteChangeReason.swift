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

    /// Why the system route (``PolicyEngine/systemRoute``) went from `previous` to `current`,
    /// with `available` the ports there are now.
    public static func systemRouteChange(
        from previous: RouteDescription, to current: RouteDescription, available: [Port]
    ) -> RouteChangeReason {
        let present = Set(available.map(\.uid))
        if (previous.inputs + previous.outputs).contains(where: { !present.contains($0.uid) }) { return .oldDeviceUnavailable }
        let known = Set((previous.inputs + previous.outputs).map(\.uid))
        if (current.inputs + current.outputs).contains(where: { !known.contains($0.uid) }) { return .newDeviceAvailable }
        return .routeConfigurationChange
    }

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
