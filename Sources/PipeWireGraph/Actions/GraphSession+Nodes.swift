import CPipeWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PipeWireShim

/// Node actions (Props, commands, port configuration): carried out on the loop thread.
extension GraphSession {
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

    func setSoftProps(node: GlobalID, volumes: [Float], mute: Bool) {
        guard let proxy = boundProxy(node, .node, action: "setSoftProps") else { return }
        let result = volumes.withUnsafeBufferPointer { buffer in
            pws_node_set_soft_props(proxy.proxy, buffer.baseAddress, UInt32(buffer.count), mute)
        }
        if result < 0 { logger.warning("setSoftProps on node \(node) failed: \(String(cString: strerror(-result)))") }
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
    func configurePorts(node nodeID: GlobalID, unlessItHasDSPPorts: Bool = false) {
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
            let now = self.mirror.nodes[nodeID] ?? node
            if unlessItHasDSPPorts, self.mirror.hasDSPPorts(now) { return }
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
        // A sink or capture stream takes audio in; a source or playback stream gives it out. A
        // null sink takes it in whatever its class, and gives a virtual source's audio out of
        // its monitor ports.
        let takesInput = node.adapterDirection == .input
        let direction = takesInput ? SPA_DIRECTION_INPUT : SPA_DIRECTION_OUTPUT
        let monitor = node.isSink || (takesInput && !node.isStream)
        let rate = format?.rate ?? 0
        let result = positions.withUnsafeBufferPointer { buffer in
            pws_node_set_port_config_dsp(
                proxy.proxy, direction, monitor, rate == 0 ? 48000 : rate, UInt32(buffer.count), buffer.baseAddress)
        }
        if result < 0 {
            logger.warning("configurePorts on node \(node.id) failed: \(String(cString: strerror(-result)))")
        }
    }

    func setRoute(device: GlobalID, index: Int, profileDevice: Int) {
        guard let proxy = boundProxy(device, .device, action: "setRoute") else { return }
        let result = pws_device_set_route(proxy.proxy, Int32(index), Int32(profileDevice))
        if result < 0 { logger.warning("setRoute on device \(device) failed: \(String(cString: strerror(-result)))") }
    }

    func setProfile(device: GlobalID, index: Int) {
        guard let proxy = boundProxy(device, .device, action: "setProfile") else { return }
        let result = pws_device_set_profile(proxy.proxy, Int32(index))
        if result < 0 { logger.warning("setProfile on device \(device) failed: \(String(cString: strerror(-result)))") }
    }

    private func boundProxy(_ id: GlobalID, _ kind: BoundProxy.Kind, action: String) -> BoundProxy? {
        guard let proxy = bound[id], proxy.kind == kind else {
            logger.debug("\(action): no \(kind) with id \(id)")
            return nil
        }
        return proxy
    }
}
