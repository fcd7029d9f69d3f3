/// Data sources (reference §6; `inputDataSources`, `setInputDataSource`, and the output's): the
/// routes of the card a session's port is on. A session's choice is its wish for that device,
/// kept with it; it is carried out only while the session is active and routed to the device,
/// and only while the route can be selected (a headset's microphone, while the headset is in).
/// When several active sessions want a route of one device, the non-mixable one wins, then the
/// most recently activated (as for the hardware preferences); when none does any more the
/// device gets back the route it had (``PolicyDecision/selectDataSource(_:_:)`` with nil).
///
/// The wish is keyed by device, not by port: selecting the headset's microphone makes the
/// session's port the headset mic's, on the same card.
extension PolicyEngine {
    mutating func setDataSource(_ id: SessionID, _ direction: PortDirection, _ source: UInt32?) {
        guard existing(id), let state = sessions[id] else { return }
        let category = state.configuration.category
        guard direction == .input ? category.hasInput : category.hasOutput else {
            emit(.failed(id, .incompatibleCategory))
            return
        }
        guard let port = currentPort(of: state, direction) else {
            emit(.failed(id, .badParam))
            return
        }
        if let source, !port.dataSources.contains(where: { $0.id == source }) {
            emit(.failed(id, .badParam))
            return
        }
        update(id) { $0.preferredDataSources[port.device] = source }
        dataSourceSessions.insert(id)
    }

    /// The data sources of the session's port in that direction (empty without one).
    public func dataSources(for id: SessionID, _ direction: PortDirection) -> [DataSource] {
        sessions[id].flatMap { currentPort(of: $0, direction) }?.dataSources ?? []
    }

    /// The route its port's device has active now, if it is a data source.
    public func selectedDataSource(for id: SessionID, _ direction: PortDirection) -> DataSource? {
        guard let port = sessions[id].flatMap({ currentPort(of: $0, direction) }), let selected = port.selectedDataSource else {
            return nil
        }
        return port.dataSources.first { $0.id == selected }
    }

    /// The session's choice for its port's device, if it made one.
    public func preferredDataSource(for id: SessionID, _ direction: PortDirection) -> UInt32? {
        guard let state = sessions[id], let port = currentPort(of: state, direction) else { return nil }
        return state.preferredDataSources[port.device]
    }

    /// The session's first port in that direction as the device reports it now (the route
    /// keeps the port as it was when routed; data sources and the selection change under it).
    func currentPort(of state: SessionState, _ direction: PortDirection) -> Port? {
        guard let routed = direction == .input ? state.route.inputs.first : state.route.outputs.first else { return nil }
        return ports.first { $0.port.uid == routed.uid }?.port ?? routed
    }

    /// The route each device should have now, from the active sessions' wishes; selected, and
    /// given back, when that changes. Costs nothing while no session has a wish and nothing is
    /// selected.
    mutating func updateDataSources() {
        guard !dataSourceSessions.isEmpty || !appliedDataSources.isEmpty else { return }
        var winners: [DeviceID: (source: UInt32, contender: HardwareArbiter.Contender)] = [:]
        for id in dataSourceSessions.sorted() {
            guard let state = sessions[id], !state.preferredDataSources.isEmpty else {
                dataSourceSessions.remove(id)
                continue
            }
            guard state.activity == .active else { continue }
            for direction in PortDirection.allCases {
                guard let port = currentPort(of: state, direction), let source = state.preferredDataSources[port.device],
                    port.dataSources.contains(where: { $0.id == source })
                else { continue }
                let candidate = HardwareArbiter.Contender(
                    wish: state.wish, isMixable: state.configuration.isMixable, activationSerial: state.serial)
                if HardwareArbiter.outranks(candidate, winners[port.device]?.contender) {
                    winners[port.device] = (source, candidate)
                }
            }
        }
        for device in appliedDataSources.keys.sorted() where winners[device] == nil {
            appliedDataSources[device] = nil
            emit(.selectDataSource(device, nil))
        }
        for device in winners.keys.sorted() {
            let source = winners[device]!.source
            guard appliedDataSources[device] != source else { continue }
            appliedDataSources[device] = source
            emit(.selectDataSource(device, source))
        }
    }
}
