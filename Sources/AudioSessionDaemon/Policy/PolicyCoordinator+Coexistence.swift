import SessionPolicy

/// Beside another session manager: ``Coexistence`` decides whether we link; this carries it out.
extension PolicyCoordinator {
    func peersChanged(_ peers: [GraphPeer]) {
        let before = coexistence.managers
        let change = coexistence.peersChanged(peers)
        if coexistence.managers != before { logger.debug("session managers: \(Self.describe(coexistence.managers))") }
        reportHeadsetSwitchers()
        defer { withdrawDefaultMetadataIfSettled() }
        guard let change else { return }
        logger.notice("\(change.reason)")
        backend.setLinking(change.linksStreams, configuringDevicePorts: change.configuresDevicePorts)
        if !change.linksStreams { awaitHandOverBound(coexistence.handOvers) }
        // Holding a stream (unlinking it) is possible only while we link: every session's
        // ways of being interrupted change, and one held now is muted instead (the engine).
        for id in sessions.apps.keys.sorted() { submit(.capabilitiesChanged(id, interruptionMethods(of: id))) }
        carryOut([])  // an empty step: the session API shows the new mode
    }

    /// After a hand-over our `default` metadata goes once the other manager has settled
    /// (``Coexistence/mayWithdrawDefaultMetadata()``).
    private func withdrawDefaultMetadataIfSettled() {
        guard coexistence.mayWithdrawDefaultMetadata() else { return }
        logger.debug("the other session manager has settled: our 'default' metadata goes")
        backend.withdrawDefaultMetadata()
    }

    private func awaitHandOverBound(_ handOver: Int) {
        _ = loop.schedule(after: Coexistence.defaultMetadataHandOverBound) { [weak self] in
            guard let self else { return }
            coexistence.defaultMetadataHandOverBoundPassed(handOver: handOver)
            withdrawDefaultMetadataIfSettled()
        }
    }

    func headsetAutoswitchChanged(_ on: Bool?) {
        logger.debug("another session manager's headset autoswitch: \(on.map { $0 ? "on" : "off" } ?? "not said")")
        coexistence.headsetAutoswitchChanged(on)
        reportHeadsetSwitchers()
    }

    /// Tells the policy whether another session manager switches headsets' profiles.
    private func reportHeadsetSwitchers() {
        guard let elsewhere = coexistence.headsetSwitchingChange() else { return }
        logger.info(elsewhere ? "another session manager switches headsets' profiles" : "no other session manager switches headsets' profiles")
        submit(.headsetsSwitchedElsewhere(elsewhere))
    }

    func rolePolicySeen(stream: String, target: String) {
        if let warning = coexistence.rolePolicySeen(stream: stream, target: target) { logger.warning("\(warning)") }
    }

    /// Each other session manager as the graph shows it: what decides whether we link.
    static func describe(_ managers: [UInt32: GraphPeer]) -> String {
        guard !managers.isEmpty else { return "none" }
        return managers.values.sorted { $0.id < $1.id }.map { peer in
            let services = peer.services.map { "services [\($0.sorted().joined(separator: " "))]" } ?? "no services said"
            return "client \(peer.id) '\(peer.displayName)' pid \(peer.processID.map(String.init) ?? "?"), \(services)"
                + (peer.providesDefaultMetadata ? ", provides 'default'" : "")
        }.joined(separator: "; ")
    }
}
