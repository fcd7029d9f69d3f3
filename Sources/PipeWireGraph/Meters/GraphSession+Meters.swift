import PipeWireShim

/// Level meters: started and stopped on request, linked to their targets by us (nobody else
/// links them), and gone with their target or the connection.
extension GraphSession {
    /// Meters start once their target is linked, so their links come after the stream's own:
    /// raced into a stream whose ports were still being configured, link creations failed now
    /// and then on 0.3.65 ("no global any more", ESTALE).
    func startMeter(node target: GlobalID, threshold: Float) {
        guard meters[target] == nil else { return }
        guard mirror.nodes[target] != nil else {
            logger.debug("meter: node \(target) is gone")
            return
        }
        guard mirror.links(of: target).contains(where: { $0.outputNode == target }) else {
            pendingMeters[target] = threshold
            return
        }
        createMeter(node: target, threshold: threshold)
    }

    private func createMeter(node target: GlobalID, threshold: Float) {
        pendingMeters[target] = nil
        guard let core = connectExportCore() else { return }
        let meter = LevelMeter(target: target, threshold: threshold, core: core, loop: loopThread.loop) {
            [weak self] meter, audible in
            self?.emit(.levelChanged(node: meter.target, audible: audible))
        }
        guard let meter else {
            logger.warning("meter: could not create a capture stream for node \(target)")
            return
        }
        meters[target] = meter
        logger.debug("metering node \(target)")
    }

    func stopMeter(node target: GlobalID) {
        pendingMeters[target] = nil
        guard let meter = meters.removeValue(forKey: target) else { return }
        meter.destroy()
        logger.debug("stopped metering node \(target)")
    }

    /// Keeps meters linked as the graph changes: the meter's node gets DSP ports, and the
    /// target's output ports are linked into it whenever either side's ports appear or the
    /// target is linked anew (a stream released after a hold). A target that goes takes its
    /// meter with it.
    func meterObserve(_ event: GraphEvent) {
        guard !meters.isEmpty || !pendingMeters.isEmpty else { return }
        switch event {
        case .added(.node(let node)):
            guard let target = node.properties[LevelMeter.targetKey].flatMap(GlobalID.init), let meter = meters[target],
                meter.nodeID == nil
            else { return }
            meter.nodeID = node.id
            configurePorts(node: node.id)
        case .added(.port(let port)):
            if let meter = meters[port.nodeID] ?? meter(withNode: port.nodeID) { linkMeter(meter) }
        case .added(.link(let link)):
            if let threshold = pendingMeters[link.outputNode] {
                createMeter(node: link.outputNode, threshold: threshold)
            } else if let meter = meters[link.outputNode], link.inputNode != meter.nodeID {
                linkMeter(meter)
            }
        case .removed(.node(let node)):
            stopMeter(node: node.id)
        default:
            break
        }
    }

    private func meter(withNode id: GlobalID) -> LevelMeter? {
        meters.values.first { $0.nodeID == id }
    }

    private func linkMeter(_ meter: LevelMeter) {
        guard let node = meter.nodeID, mirror.nodes[node] != nil, !mirror.ports(of: node, direction: .input).isEmpty
        else { return }
        link(output: meter.target, input: node)
    }

    func destroyMeters() {
        for meter in meters.values { meter.destroy() }
        meters.removeAll()
        pendingMeters.removeAll()
    }
}
