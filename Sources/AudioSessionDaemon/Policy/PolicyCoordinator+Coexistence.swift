import SessionPolicy

/// Beside another session manager: ``Coexistence`` decides whether we link; this carries it out.
extension PolicyCoordinator {
    func peersChanged(_ peers: [GraphPeer]) {
        guard let change = coexistence.peersChanged(peers) else { return }
        logger.notice("\(change.reason)")
        backend.setLinking(change.linksStreams, configuringDevicePorts: change.configuresDevicePorts)
        // Holding a stream (unlinking it) is possible only while we link: every session's
        // ways of being interrupted change, and one held now is muted instead (the engine).
        for id in sessions.apps.keys.sorted() { submit(.capabilitiesChanged(id, interruptionMethods(of: id))) }
        carryOut([])  // an empty step: the session API shows the new mode
    }

    func rolePolicySeen(stream: String, target: String) {
        if let warning = coexistence.rolePolicySeen(stream: stream, target: target) { logger.warning("\(warning)") }
    }
}
