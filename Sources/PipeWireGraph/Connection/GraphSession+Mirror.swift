import CPipeWire
import PipeWireShim

/// Registry and object events → the mirror, one event per change.
extension GraphSession {
    // MARK: - Registry

    func registryGlobal(id: GlobalID, type: String, version: UInt32, properties: [String: String]) {
        if type == "PipeWire:Interface:Port" {
            guard let port = Port(globalID: id, properties: properties) else { return }
            mirror.insert(port)
            emit(.added(.port(port)))
            return
        }
        if type == "PipeWire:Interface:Profiler" {
            profilerAppeared(id: id, version: version)
            return
        }
        guard let kind = BoundProxy.Kind(interfaceType: type), let registry, bound[id] == nil else { return }
        // Announced before it is bound: what a policy asks on sight (a call's first holds) is
        // written ahead of the bind, and the server handles it first.
        if kind == .node { emit(.announced(Node(announced: id, globalProperties: properties))) }
        guard
            let proxy = BoundProxy(
                session: self, registry: registry, id: id, kind: kind, serverVersion: version, properties: properties)
        else {
            logger.warning("Could not bind \(type) \(id)")
            if kind == .node { emit(.announcementWithdrawn(id)) }
            return
        }
        bound[id] = proxy
        pendingWork += 1
        coverBinds()
        if kind == .metadata {
            // Metadata has no info event: publish it now; its properties follow as events.
            let name = properties["metadata.name"] ?? "default"
            let metadata = Metadata(id: id, name: name, properties: properties)
            mirror.metadata[name] = metadata
            proxy.published = true
            emit(.added(.metadata(metadata)))
            replayMetadataLater(id)
        }
    }

    /// A metadata another client implements (WirePlumber's `default`) can lose the changes it
    /// makes while our bind is still on its way to it: seen with WirePlumber 0.4 on PipeWire
    /// 0.3.65 in about one start in ten, its default sink never mirrored (pw-dump, binding
    /// later, had it). Bound once more a moment later, it replays every property, and the
    /// mirror reports only what it had missed. One timer per new metadata object: nothing at idle.
    private func replayMetadataLater(_ id: GlobalID) {
        let timer = GraphTimer(loopThread: loopThread) { [weak self] in self?.rebindMetadata(id) }
        timer.arm(nanoseconds: Self.metadataReplayDelay)
        metadataReplays[id] = timer
    }

    static let metadataReplayDelay: UInt64 = 250_000_000

    /// Binds a metadata object again (its properties replay); the old proxy goes.
    private func rebindMetadata(_ id: GlobalID) {
        metadataReplays[id] = nil
        guard let old = bound[id], old.kind == .metadata, let registry,
            let fresh = BoundProxy(
                session: self, registry: registry, id: id, kind: .metadata, serverVersion: old.serverVersion,
                properties: old.globalProperties)
        else { return }
        fresh.published = true
        bound[id] = fresh
        old.destroy()
        coverBinds()
    }

    func registryGlobalRemove(id: GlobalID) {
        // Ours, found through the mirror's link (its port pair) without a scan; a link removed
        // before its info arrived is looked for among ours.
        let mirrored = mirror.links[id].flatMap { ownedLinks[PortPairing.Pair(outputPort: $0.outputPort, inputPort: $0.inputPort)] }
        if let link = mirrored?.globalID == id ? mirrored : ownedLinks.values.first(where: { $0.globalID == id }) {
            ownedLinks[link.pair] = nil
            link.destroy()
        }
        if let port = mirror.removePort(id) {
            dropLinksBeingMade(to: id)
            emit(.removed(.port(port)))
            return
        }
        if id == profilerGlobal?.id {
            profilerRemoved()
            return
        }
        metadataReplays.removeValue(forKey: id)?.cancel()
        guard let proxy = bound.removeValue(forKey: id) else { return }
        proxy.destroy()
        guard proxy.published else {
            if proxy.kind == .node { emit(.announcementWithdrawn(id)) }
            return
        }
        switch proxy.kind {
        case .client:
            if let client = mirror.clients.removeValue(forKey: id) { emit(.removed(.client(client))) }
        case .node:
            if let node = mirror.nodes.removeValue(forKey: id) { emit(.removed(.node(node))) }
        case .link:
            if let link = mirror.removeLink(id) { emit(.removed(.link(link))) }
        case .device:
            if let device = mirror.devices.removeValue(forKey: id) { emit(.removed(.device(device))) }
        case .metadata:
            if let name = mirror.metadata.first(where: { $0.value.id == id })?.key,
                let metadata = mirror.metadata.removeValue(forKey: name)
            {
                emit(.removed(.metadata(metadata)))
            }
        }
    }

    /// Emits `added` the first time, then `changed` only when the value really changed.
    private func publish(_ proxy: BoundProxy, old: GraphObject?, new: GraphObject) {
        if !proxy.published {
            proxy.published = true
            emit(.added(new))
        } else if old != new {
            emit(.changed(new))
        }
    }

    // MARK: - Clients

    func clientInfo(_ proxy: BoundProxy, _ info: pw_client_info) {
        let old = mirror.clients[proxy.id]
        var client = old ?? Client(id: proxy.id, properties: proxy.globalProperties)
        if info.change_mask & ChangeMask.clientProps != 0 || old == nil {
            var properties = proxy.globalProperties
            properties.merge([String: String](spaDict: info.props)) { $1 }
            client.properties = properties
            client.applicationName = properties["application.name"]
            client.processBinary = properties["application.process.binary"]
            client.pid = (properties["application.process.id"] ?? properties["pipewire.sec.pid"]).flatMap { Int32($0) }
        }
        mirror.clients[proxy.id] = client
        publish(proxy, old: old.map(GraphObject.client), new: .client(client))
    }

    // MARK: - Nodes

    func nodeInfo(_ proxy: BoundProxy, _ info: pw_node_info) {
        let old = mirror.nodes[proxy.id]
        var node = old ?? Node(id: proxy.id, name: proxy.globalProperties["node.name"] ?? "")
        if info.change_mask & ChangeMask.nodeProps != 0 || old == nil {
            var properties = proxy.globalProperties
            properties.merge([String: String](spaDict: info.props)) { $1 }
            // Which driver the node follows: PipeWire 1.x rewrites it whenever a link comes or
            // goes. It says nothing about the stream, and left in, a call that holds a hundred
            // streams (and gives them back) changed a hundred streams' properties twice over,
            // each classified and reconciled again.
            properties[Node.driverIDProperty] = nil
            if let old, old.properties == properties { properties = old.properties }  // same storage: O(1) compares
            node.properties = properties
            node.name = properties["node.name"] ?? ""
            node.mediaClass = properties["media.class"]
            node.serial = properties["object.serial"].flatMap { UInt64($0) }
            node.clientID = properties["client.id"].flatMap { GlobalID($0) }
            node.deviceID = properties["device.id"].flatMap { GlobalID($0) }
        }
        node.state = NodeState(info.state, error: info.error)
        node.inputPortCount = Int(info.n_input_ports)
        node.outputPortCount = Int(info.n_output_ports)
        if info.change_mask & ChangeMask.nodeParams != 0 {
            subscribeToReadableProps(proxy, info.params, count: info.n_params)
        }
        mirror.nodes[proxy.id] = node
        publish(proxy, old: old.map(GraphObject.node), new: .node(node))
    }

    /// Subscribes to `Props` only when the node lists it as readable (pitfall 3).
    private func subscribeToReadableProps(
        _ proxy: BoundProxy, _ params: UnsafeMutablePointer<spa_param_info>?, count: UInt32
    ) {
        guard let params else { return }
        let props = SPA_PARAM_Props.rawValue
        for index in 0..<Int(count) where params[index].id == props {
            guard params[index].flags & ParamFlag.read != 0, !proxy.subscribedParams.contains(props) else { continue }
            proxy.subscribedParams.insert(props)
            pendingWork += 1
            _ = pws_node_subscribe_param(proxy.proxy, props)
        }
    }

    func nodeParam(_ proxy: BoundProxy, seq: Int32, id: UInt32, pod: UnsafePointer<spa_pod>?) {
        if id == SPA_PARAM_EnumFormat.rawValue, proxy.pendingFormats[seq] != nil {
            var rate: UInt32 = 0
            var channels: UInt32 = 0
            var positions = [UInt32](repeating: 0, count: Int(PWS_MAX_CHANNELS))
            if let pod, pws_parse_audio_format(pod, &rate, &channels, &positions) {
                proxy.pendingFormats[seq]?.append((rate, Array(positions.prefix(Int(channels)))))
            }
            return
        }
        guard id == SPA_PARAM_Props.rawValue, let pod, var node = mirror.nodes[proxy.id] else { return }
        var parsed = pws_props()
        guard pws_parse_props(pod, &parsed) else { return }
        let old = node
        var props = node.props ?? NodeProps()
        props.merge(parsed)
        node.props = props
        mirror.nodes[proxy.id] = node
        publish(proxy, old: .node(old), new: .node(node))
    }

    // MARK: - Links

    func linkInfo(_ proxy: BoundProxy, _ info: pw_link_info) {
        let old = mirror.links[proxy.id]
        var link =
            old
            ?? Link(
                id: proxy.id, outputNode: info.output_node_id, outputPort: info.output_port_id,
                inputNode: info.input_node_id, inputPort: info.input_port_id, properties: proxy.globalProperties)
        link.state = LinkState(info.state, error: info.error)
        if info.change_mask & ChangeMask.linkProps != 0 {
            link.properties.merge([String: String](spaDict: info.props)) { $1 }
        }
        mirror.insert(link)
        publish(proxy, old: old.map(GraphObject.link), new: .link(link))
    }

    // MARK: - Devices

    func deviceInfo(_ proxy: BoundProxy, _ info: pw_device_info) {
        let old = mirror.devices[proxy.id]
        var device = old ?? Device(id: proxy.id, name: proxy.globalProperties["device.name"] ?? "")
        if info.change_mask & ChangeMask.deviceProps != 0 || old == nil {
            var properties = proxy.globalProperties
            properties.merge([String: String](spaDict: info.props)) { $1 }
            device.properties = properties
            device.name = properties["device.name"] ?? device.name
        }
        mirror.devices[proxy.id] = device
        publish(proxy, old: old.map(GraphObject.device), new: .device(device))
        if info.change_mask & ChangeMask.deviceParams != 0 {
            reenumerateChangedRoutes(proxy, info.params, count: info.n_params)
        }
    }

    /// Re-reads `EnumRoute` / `Route` / `EnumProfile` / `Profile` whenever their flags change
    /// (the SERIAL bit flips): subscriptions do not push for client-exported devices (pitfall 2).
    private func reenumerateChangedRoutes(
        _ proxy: BoundProxy, _ params: UnsafeMutablePointer<spa_param_info>?, count: UInt32
    ) {
        guard let params else { return }
        let wanted: Set<UInt32> = [
            SPA_PARAM_EnumRoute.rawValue, SPA_PARAM_Route.rawValue, SPA_PARAM_EnumProfile.rawValue, SPA_PARAM_Profile.rawValue,
        ]
        for index in 0..<Int(count) where wanted.contains(params[index].id) {
            let id = params[index].id
            let flags = params[index].flags
            guard flags & ParamFlag.read != 0, proxy.paramFlags[id] != flags else { continue }
            proxy.paramFlags[id] = flags
            // Replies carry the value the method returns (the message's async seq), not our argument.
            let seq = pws_device_enum_params(proxy.proxy, 0, id)
            guard seq >= 0 else {
                logger.warning("device \(proxy.id): enum params \(id) failed: \(seq)")
                continue
            }
            proxy.pendingEnumerations[id] = (seq, DeviceParams())
            pendingWork += 1
            logger.trace("device \(proxy.id): re-reading param \(id) (flags \(flags), seq \(seq))")
            sync { [weak self, weak proxy] completed in
                guard completed, let self, let proxy else { return }
                self.commitRoutes(proxy, paramID: id, seq: seq)
            }
        }
    }

    func deviceParam(_ proxy: BoundProxy, seq: Int32, id: UInt32, pod: UnsafePointer<spa_pod>?) {
        logger.trace("device \(proxy.id): param \(id) seq \(seq)")
        guard let pending = proxy.pendingEnumerations[id], pending.seq == seq else { return }
        if let route = Route(parsing: pod) {
            proxy.pendingEnumerations[id]?.params.routes.append(route)
        } else if let profile = DeviceProfile(parsing: pod) {
            proxy.pendingEnumerations[id]?.params.profiles.append(profile)
        }
    }

    private func commitRoutes(_ proxy: BoundProxy, paramID: UInt32, seq: Int32) {
        guard let pending = proxy.pendingEnumerations[paramID], pending.seq == seq,
            var device = mirror.devices[proxy.id]
        else { return }
        proxy.pendingEnumerations[paramID] = nil
        let old = device
        switch paramID {
        case SPA_PARAM_EnumRoute.rawValue: device.enumRoutes = pending.params.routes
        case SPA_PARAM_Route.rawValue: device.activeRoutes = pending.params.routes
        case SPA_PARAM_EnumProfile.rawValue: device.profiles = pending.params.profiles
        default: device.activeProfile = pending.params.profiles.first
        }
        mirror.devices[proxy.id] = device
        publish(proxy, old: .device(old), new: .device(device))
    }

    // MARK: - Metadata

    func metadataProperty(_ proxy: BoundProxy, subject: UInt32, key: String?, type: String?, value: String?) {
        guard let name = mirror.metadata.first(where: { $0.value.id == proxy.id })?.key else { return }
        applyMetadataProperty(name, subject: subject, key: key, type: type, value: value)
    }

    /// A change seen by the implementation of a metadata we export (``ExportedMetadata``, global
    /// `id`): the same change usually comes back through our bound proxy too, and is reported
    /// once. Only while the mirror shows that object under its name: another client's
    /// metadata of the same name (WirePlumber's `default`, beside ours until ours goes) is not
    /// ours to change.
    func implementedMetadataProperty(_ name: String, id: UInt32, subject: UInt32, key: String?, type: String?, value: String?) {
        // Not mirrored yet: binding it replays every property.
        guard mirror.metadata[name]?.id == id else { return }
        applyMetadataProperty(name, subject: subject, key: key, type: type, value: value)
    }

    /// Applies a property change to the mirror and reports it, unless the mirror has it already.
    private func applyMetadataProperty(_ name: String, subject: UInt32, key: String?, type: String?, value: String?) {
        guard var metadata = mirror.metadata[name] else { return }
        let before = metadata.entries
        metadata.apply(subject: subject, key: key, type: type, value: value)
        // Re-setting an entry to what it holds changes nothing; clearing a subject always counts.
        if key != nil, metadata.entries == before { return }
        mirror.metadata[name] = metadata
        emit(.metadataChanged(name: name, subject: subject, key: key, value: value))
    }
}

extension Port {
    /// A port from its registry global: everything we need is in the global's properties.
    init?(globalID: GlobalID, properties: [String: String]) {
        guard let nodeID = properties["node.id"].flatMap({ GlobalID($0) }),
            let direction = properties["port.direction"]
        else { return nil }
        self.init(
            id: globalID, nodeID: nodeID, direction: direction == "out" ? .output : .input,
            channel: properties["audio.channel"], isMonitor: properties["port.monitor"] == "true",
            name: properties["port.name"] ?? "", properties: properties)
    }
}
