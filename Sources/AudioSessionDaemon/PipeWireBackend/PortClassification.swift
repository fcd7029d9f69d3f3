import PipeWireGraph
import SessionPolicy

/// Describes a sink or source node as AVAudioSession ports (reference §6).
///
/// A node of a device with routes (an ALSA card: speaker and headphone jack on one sink) gives
/// one port per route of its direction and of the device's active profile (a Bluetooth
/// headset's `EnumRoute` lists the routes of every profile, and only the active profile has
/// nodes), `uid` = `<node.name>:<route name>`, available while the route is not
/// `available: no`; any other node gives one port, `uid` = `node.name`, typed by
/// ``PortTyping``.
enum PortClassification {
    /// Every port a sink or source node offers (empty for other nodes).
    static func offers(for node: Node, in snapshot: GraphSnapshot, rule: PortTyping.TypeRule? = nil) -> [PortTyping.Offer] {
        guard let direction = GraphEndpoints.endpointDirection(of: node) else { return [] }
        let device = node.deviceID.flatMap { snapshot.devices[$0] }
        let properties = (device?.properties ?? [:]).merging(node.properties) { _, nodeValue in nodeValue }
        let portDirection: PortDirection = direction == .playback ? .output : .input
        let declared = Int(properties["audio.channels"] ?? "") ?? Self.positionCount(properties["audio.position"])
        let channels = declared ?? max(1, node.props?.channelVolumes.count ?? 2)
        let base = SessionPolicy.Port(
            uid: node.name, nodeID: node.id, name: node.displayName,
            type: rule?(properties) ?? PortTyping.type(of: properties, route: nil, direction: portDirection), direction: portDirection,
            channels: channels, deviceID: device.map { $0.name },
            priority: Int(properties["priority.session"] ?? "") ?? Int(properties["priority.driver"] ?? "") ?? 0)
        let routeDirection: Direction = portDirection == .output ? .output : .input
        let routes = (device.map { Self.routes(of: node, on: $0) } ?? []).filter { $0.direction == routeDirection }
        guard !routes.isEmpty else { return [PortTyping.Offer(port: base, available: true, channelsDeclared: declared != nil)] }
        return routes.map { route in
            var port = base
            port.uid = "\(node.name):\(route.name)"
            port.name = route.description.isEmpty ? route.name : route.description
            var routed = properties
            routed["device.route.name"] = route.name
            port.type = rule?(routed)
                ?? PortTyping.type(of: properties, route: route.name, routeDescription: route.description, direction: portDirection)
            return PortTyping.Offer(port: port, available: route.available != .no, channelsDeclared: declared != nil)
        }
    }

    /// A device node's data sources: its card's routes of its direction that can be chosen now,
    /// and the active one. Nil for a node without a card with routes.
    static func dataSources(of node: Node, in snapshot: GraphSnapshot) -> DeviceDataSources? {
        guard let direction = GraphEndpoints.endpointDirection(of: node), let device = node.deviceID.flatMap({ snapshot.devices[$0] })
        else { return nil }
        let routes = Self.routes(of: node, on: device).filter { $0.direction == (direction == .playback ? .output : .input) }
        guard !routes.isEmpty else { return nil }
        let sources = routes.filter { $0.available != .no }.map { PortTyping.dataSource(index: $0.index, name: $0.name, description: $0.description) }
        return DeviceDataSources(sources: sources, selected: activeRoute(of: node, on: device).map { UInt32($0.index) })
    }

    /// The routes a device node plays or records on: a Bluetooth node's are those of its own
    /// profile (`api.bluez5.profile`, read before the device's new `Profile` param is, while a
    /// switch is under way; bluez5 numbers the sink the same card profile device in every
    /// profile); an ALSA card's node's, the routes that serve its card profile device, which the
    /// card numbers across all its profiles (its HDMI sink's routes are its own even while the
    /// card's `Profile` still names the analog profile it leaves); any other node's, those of
    /// its device's active profile. Either way, only the routes that serve the node's own card
    /// profile device: one profile can have several sinks (a laptop's speaker and each of its
    /// HDMI outputs), and each route belongs to one of them.
    static func routes(of node: Node, on device: Device) -> [Route] {
        let profileDevice = Int(node.properties["card.profile.device"] ?? "")
        let ofProfile: [Route]
        if let profile = node.properties["api.bluez5.profile"], !device.profiles.isEmpty {
            // 0.3.65 lists a codec-less profile and its codecs' (`a2dp-sink`, `a2dp-sink-sbc`).
            let own = Set(device.profiles.filter { $0.name == profile || $0.name.hasPrefix(profile + "-") }.map(\.index))
            ofProfile = device.enumRoutes.filter { $0.profiles.isEmpty || !own.isDisjoint(with: $0.profiles) }
        } else if let profileDevice, case let served = device.enumRoutes.filter({ $0.devices.contains(profileDevice) }), !served.isEmpty {
            return served
        } else {
            ofProfile = device.routesOfActiveProfile
        }
        guard let profileDevice else { return ofProfile }
        return ofProfile.filter { $0.devices.isEmpty || $0.devices.contains(profileDevice) }
    }

    /// The route a card has active for a node (its `card.profile.device`).
    static func activeRoute(of node: Node, on device: Device) -> Route? {
        let profileDevice = Int(node.properties["card.profile.device"] ?? "")
        return device.activeRoutes.first { profileDevice == nil || $0.device == profileDevice }
    }

    /// `[ FL FR ]`, `FL,FR` or `MONO`: how many positions.
    static func positionCount(_ position: String?) -> Int? {
        guard let position else { return nil }
        let names = position.split { " ,[]".contains($0) }
        return names.isEmpty ? nil : names.count
    }

    /// The port a node plays or records on now: its device's active route for the node's card
    /// profile device, else its first available port.
    static func activePort(of node: Node, in snapshot: GraphSnapshot, rule: PortTyping.TypeRule? = nil) -> SessionPolicy.Port? {
        let offers = offers(for: node, in: snapshot, rule: rule)
        if let device = node.deviceID.flatMap({ snapshot.devices[$0] }) {
            if let active = activeRoute(of: node, on: device), let offer = offers.first(where: { $0.port.uid == "\(node.name):\(active.name)" }) {
                return offer.port
            }
        }
        return offers.first(where: \.available)?.port
    }
}
