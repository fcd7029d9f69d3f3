/// Decides which device a stream is linked to — the foundation's linking policy.
///
/// The rules are the ones PipeWire users already know from WirePlumber: a target the app or
/// user named wins while it exists; everything else follows the default device, which is the
/// user's configured default when that device exists, else the device with the highest
/// `priority.session` (ties broken by name, so the answer never depends on discovery order).
/// Pure: the same inputs always give the same answer.
public enum LinkTargetResolver {
    /// The effective default device of one direction.
    ///
    /// - Parameters:
    ///   - configuredName: the user's choice (`default.configured.audio.sink` / `.source`), if any.
    ///   - endpoints: every device that exists now; other directions are ignored.
    public static func defaultEndpoint(
        direction: StreamDirection, configuredName: String?, endpoints: [LinkEndpoint]
    ) -> LinkEndpoint? {
        let candidates = endpoints.filter { $0.direction == direction }
        if let configuredName, let configured = candidates.first(where: { $0.name == configuredName }) {
            return configured
        }
        return candidates.max { lhs, rhs in
            lhs.priority != rhs.priority ? lhs.priority < rhs.priority : lhs.name > rhs.name
        }
    }

    /// Where `request` should be linked, given the devices that exist and the effective default.
    public static func target(
        for request: StreamLinkRequest, endpoints: [LinkEndpoint], defaultEndpoint: LinkEndpoint?
    ) -> LinkTarget {
        if let requested = request.requestedTarget, !requested.isEmpty {
            if let endpoint = endpoint(named: requested, direction: request.direction, in: endpoints) {
                return .requested(endpoint)
            }
            if request.dontReconnect { return .none(.requestedTargetGoneNoReconnect) }
        }
        guard let defaultEndpoint, defaultEndpoint.direction == request.direction else {
            return .none(.noDevice)
        }
        return .followingDefault(defaultEndpoint)
    }

    /// Finds a device by node name, object serial or global id, as `target.object` / `node.target` allow.
    static func endpoint(named target: String, direction: StreamDirection, in endpoints: [LinkEndpoint]) -> LinkEndpoint? {
        let candidates = endpoints.filter { $0.direction == direction }
        if let byName = candidates.first(where: { $0.name == target }) { return byName }
        guard let number = UInt64(target) else { return nil }
        return candidates.first { $0.serial == number } ?? candidates.first { UInt64($0.id) == number }
    }
}
