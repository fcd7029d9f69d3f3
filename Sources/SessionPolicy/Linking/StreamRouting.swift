/// Where each stream is linked: the one routing decision, made from the engine's routes and
/// what the stream itself asks. The backend only carries it out.
///
/// A target the stream or a mixer named wins while it exists (``LinkTargetResolver``); else
/// the stream goes to its session's route (every device of it that exists: one output, or
/// every output of a multiRoute session); else, if it has no route, to the effective default.
/// A stream whose route's devices are all gone waits for its next route, and a stream asked
/// not to be reconnected whose target is gone stays unlinked.
public enum StreamRouting {
    /// A stream's devices, its target, and why (for logs).
    public struct Decision: Hashable, Sendable {
        public var devices: Set<UInt32>
        public var target: LinkTarget
        public var reason: String
    }

    /// - Parameters:
    ///   - route: the devices of the stream's direction on its session's route (``PolicyEngine/route(for:)``).
    ///   - endpoints: every device that exists now.
    ///   - defaultEndpoint: the effective default of the stream's direction (``effectiveDefault(direction:preferred:configuredName:endpoints:)``).
    public static func decide(
        for request: StreamLinkRequest, route: [UInt32], endpoints: [LinkEndpoint], defaultEndpoint: LinkEndpoint?
    ) -> Decision {
        let target = LinkTargetResolver.target(for: request, endpoints: endpoints, defaultEndpoint: defaultEndpoint)
        switch target {
        case .requested(let endpoint):
            return Decision(devices: [endpoint.id], target: target, reason: "its requested target")
        case .none(.requestedTargetGoneNoReconnect):
            return Decision(devices: [], target: target, reason: "\(LinkTarget.Reason.requestedTargetGoneNoReconnect)")
        default:
            break
        }
        let existing = Set(endpoints.filter { $0.direction == request.direction }.map(\.id))
        let routed = route.filter(existing.contains)
        if !routed.isEmpty { return Decision(devices: Set(routed), target: target, reason: "its session's route") }
        if !route.isEmpty {
            // Its route's devices went and the policy has not routed it anew: a device switching
            // profile, whose new nodes are coming. The default would be a leak (a headset's
            // music on the speakers for a moment); it waits for its route.
            return Decision(devices: [], target: target, reason: "its session's route is gone: waiting for the next")
        }
        switch target {
        case .followingDefault(let endpoint):
            return Decision(devices: [endpoint.id], target: target, reason: "following the default")
        case .none(let reason):
            return Decision(devices: [], target: target, reason: "\(reason)")
        case .requested:
            preconditionFailure("handled above")
        }
    }

    /// The default device of a direction: the policy's choice (the system route, last in
    /// wins) if it exists, else the user's configured one if it exists, else the device with
    /// the highest priority.
    public static func effectiveDefault(
        direction: StreamDirection, preferred: UInt32?, configuredName: String?, endpoints: [LinkEndpoint]
    ) -> LinkEndpoint? {
        if let preferred, let endpoint = endpoints.first(where: { $0.id == preferred && $0.direction == direction }) {
            return endpoint
        }
        return LinkTargetResolver.defaultEndpoint(direction: direction, configuredName: configuredName, endpoints: endpoints)
    }
}
