import CPipeWire
import Foundation
import PipeWireShim

/// The actions: carried out on the loop thread, deciding nothing.
extension GraphSession {
    // MARK: - Links

    /// Links `output` into `input` port by port; pairs already linked (or being linked) are skipped,
    /// so calling this again on every new port is cheap and idempotent.
    func link(output: GlobalID, input: GlobalID) {
        guard let core else { return }
        let existing = Set(mirror.links.values.map { PortPairing.Pair(outputPort: $0.outputPort, inputPort: $0.inputPort) })
        for pair in PortPairing.pairs(in: mirror, output: output, input: input)
        where !existing.contains(pair) && ownedLinks[pair] == nil {
            guard let proxy = pws_core_create_link(core, output, pair.outputPort, input, pair.inputPort) else {
                logger.warning("Could not create link \(output):\(pair.outputPort) → \(input):\(pair.inputPort)")
                continue
            }
            ownedLinks[pair] = OwnedLink(session: self, pair: pair, proxy: proxy)
        }
    }

    func unlink(_ link: GlobalID) {
        guard let registry else { return }
        _ = pws_registry_destroy(registry, link)
    }

    func unlinkAll(between output: GlobalID, and input: GlobalID) {
        for link in mirror.links(from: output, to: input) { unlink(link.id) }
        // Links requested but not yet in the registry: dropping our proxy destroys them.
        let ports = Set(mirror.ports(of: output).map(\.id))
        for (pair, link) in ownedLinks where link.globalID == nil && ports.contains(pair.outputPort) {
            if mirror.ports[pair.inputPort]?.nodeID == input {
                ownedLinks[pair] = nil
                link.destroy()
            }
        }
    }

    func ownedLinkFailed(_ link: OwnedLink, result: Int32, message: String) {
        logger.warning(
            "Link \(link.pair.outputPort) → \(link.pair.inputPort) failed: \(message) (\(String(cString: strerror(-result))))")
        dropOwnedLink(link)
    }

    func ownedLinkRemoved(_ link: OwnedLink) { dropOwnedLink(link) }

    /// Defers the proxy's destruction (we are inside one of its own events) but keeps it
    /// reachable, so a teardown in between destroys it before the core frees it.
    private func dropOwnedLink(_ link: OwnedLink) {
        guard ownedLinks[link.pair] === link else { return }
        ownedLinks[link.pair] = nil
        retiredLinks.append(link)
        loopThread.enqueue { [self] in destroyRetiredLinks() }
    }

    func destroyRetiredLinks() {
        let links = retiredLinks
        retiredLinks = []
        for link in links { link.destroy() }
    }

    // MARK: - Node params and commands

    func setProps(node: GlobalID, volume: Float?, mute: Bool?, channelVolumes: [Float]?) {
        guard let proxy = boundProxy(node, .node, action: "setProps") else { return }
        var volumeValue = volume ?? 0
        var muteValue = mute ?? false
        let channels = channelVolumes ?? []
        let result = withUnsafePointer(to: &volumeValue) { volumePointer in
            withUnsafePointer(to: &muteValue) { mutePointer in
                channels.withUnsafeBufferPointer { buffer in
                    pws_node_set_props(
                        proxy.proxy, volume == nil ? nil : volumePointer, mute == nil ? nil : mutePointer,
                        buffer.baseAddress, UInt32(buffer.count))
                }
            }
        }
        if result < 0 { logger.warning("setProps on node \(node) failed: \(String(cString: strerror(-result)))") }
    }

    func send(_ command: NodeCommand, to node: GlobalID) {
        guard let proxy = boundProxy(node, .node, action: "send(\(command))") else { return }
        let id: UInt32 =
            switch command {
            case .suspend: SPA_NODE_COMMAND_Suspend.rawValue
            case .pause: SPA_NODE_COMMAND_Pause.rawValue
            case .start: SPA_NODE_COMMAND_Start.rawValue
            }
        let result = pws_node_send_command(proxy.proxy, id)
        if result < 0 { logger.warning("send(\(command)) to node \(node) failed: \(String(cString: strerror(-result)))") }
    }

    /// Gives an adapter node or a stream its DSP ports (one mono F32 port per channel), in the
    /// channel layout of its preferred format: what a session manager does before linking.
    func configurePorts(node nodeID: GlobalID) {
        guard let proxy = boundProxy(nodeID, .node, action: "configurePorts"), let node = mirror.nodes[nodeID]
        else { return }
        // Replies carry the value the method returns (the message's async seq).
        let seq = pws_node_enum_params(proxy.proxy, 0, SPA_PARAM_EnumFormat.rawValue)
        guard seq >= 0 else {
            logger.warning("configurePorts: enum formats of node \(nodeID) failed: \(seq)")
            return
        }
        proxy.pendingFormats[seq] = []
        sync { [weak self, weak proxy] completed in
            guard completed, let self, let proxy else { return }
            let formats = proxy.pendingFormats.removeValue(forKey: seq) ?? []
            self.applyPortConfig(proxy, node: self.mirror.nodes[nodeID] ?? node, format: formats.first)
        }
    }

    private func applyPortConfig(_ proxy: BoundProxy, node: Node, format: (rate: UInt32, positions: [UInt32])?) {
        var positions = format?.positions ?? []
        if positions.isEmpty, let declared = node.properties["audio.position"] {
            positions = declared.split(whereSeparator: { " ,[]".contains($0) }).map { ChannelNames.channel(String($0)) }
        }
        if positions.isEmpty {
            let count = node.properties["audio.channels"].flatMap { Int($0) } ?? 2
            positions = ChannelNames.defaultPositions(count: max(1, count))
        }
        if positions.allSatisfy({ $0 == ChannelNames.channel("UNK") }) {
            positions = ChannelNames.defaultPositions(count: positions.count)
        }
        // A sink or capture stream takes audio in; a source or playback stream gives it out.
        let consumesAudio = node.isSink || node.isCaptureStream || node.mediaClass == "Stream/Input/Audio"
        let direction = consumesAudio ? SPA_DIRECTION_INPUT : SPA_DIRECTION_OUTPUT
        let rate = format?.rate ?? 0
        let result = positions.withUnsafeBufferPointer { buffer in
            pws_node_set_port_config_dsp(
                proxy.proxy, direction, node.isSink, rate == 0 ? 48000 : rate, UInt32(buffer.count), buffer.baseAddress)
        }
        if result < 0 {
            logger.warning("configurePorts on node \(node.id) failed: \(String(cString: strerror(-result)))")
        }
    }

    private func boundProxy(_ id: GlobalID, _ kind: BoundProxy.Kind, action: String) -> BoundProxy? {
        guard let proxy = bound[id], proxy.kind == kind else {
            logger.debug("\(action): no \(kind) with id \(id)")
            return nil
        }
        return proxy
    }

    // MARK: - Metadata

    func setMetadata(_ name: String, subject: GlobalID, key: String, type: String?, value: String?) {
        guard let id = mirror.metadata[name]?.id, let proxy = bound[id] else {
            logger.warning("setMetadata: no metadata named '\(name)'")
            return
        }
        _ = pws_metadata_set_property(proxy.proxy, subject, key, type, value)
    }

    /// Remembers `name` (re-exported after every reconnect) and exports it now if connected.
    func provideMetadata(named name: String) {
        if !providedMetadataNames.contains(name) { providedMetadataNames.append(name) }
        if core != nil { exportMetadata(named: name) }
    }

    /// Implements a metadata object in this process, exported on the second ("export")
    /// connection so that binding it back on the main one cannot deadlock (pitfall 1).
    func exportMetadata(named name: String) {
        guard exportedMetadata[name] == nil, let exportCore = connectExportCore() else { return }
        var implementation: UnsafeMutableRawPointer?
        guard let proxy = pws_export_metadata(pw_core_get_context(exportCore), exportCore, name, &implementation),
            let implementation
        else {
            logger.error("Could not export metadata '\(name)'")
            return
        }
        exportedMetadata[name] = (proxy, implementation)
        logger.debug("Exported metadata '\(name)'")
    }

    private func connectExportCore() -> OpaquePointer? {
        if let exportCore { return exportCore }
        guard let main = core else { return nil }
        var properties: [String: String] = [:]
        if let remote = configuration.remote { properties["remote.name"] = remote }
        guard let exportCore = pw_context_connect(pw_core_get_context(main), Self.makeProperties(properties), 0) else {
            logger.error("Could not open the export connection: \(String(cString: strerror(errno)))")
            return nil
        }
        let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
        hook.initialize(to: spa_hook())
        _ = pws_core_add_listener(exportCore, hook, EventTables.exportCore, Unmanaged.passUnretained(self).toOpaque())
        self.exportCore = exportCore
        exportCoreHook = hook
        return exportCore
    }

    func exportCoreError(id: UInt32, result: Int32, message: String) {
        logger.debug("Export connection error on \(id): \(message) (\(result))")
        // A dead export connection means a dead daemon: the main connection handles it.
    }

    func tearDownExports() {
        for (_, exported) in exportedMetadata {
            pw_proxy_destroy(exported.proxy)
            pws_exported_metadata_destroy(exported.implementation)
        }
        exportedMetadata = [:]
        if let exportCore {
            if let exportCoreHook { detachHook(exportCoreHook) }
            pw_core_disconnect(exportCore)
        }
        exportCore = nil
        exportCoreHook?.deallocate()
        exportCoreHook = nil
    }
}
