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
        guard let device = routedDevice(of: state, direction) else {
            emit(.failed(id, .badParam))
            return
        }
        if let source, !(deviceDataSources[device]?.sources ?? []).contains(where: { $0.id == source }) {
            emit(.failed(id, .badParam))
            return
        }
        update(id) { $0.preferredDataSources[device] = source }
        dataSourceSessions.insert(id)
    }

    /// The data sources of the session's port in that direction (empty without one).
    public func dataSources(for id: SessionID, _ direction: PortDirection) -> [DataSource] {
        sessions[id].flatMap { routedDevice(of: $0, direction) }.flatMap { deviceDataSources[$0] }?.sources ?? []
    }

    /// The route its port's device has active now, if it is a data source.
    public func selectedDataSource(for id: SessionID, _ direction: PortDirection) -> DataSource? {
        guard let device = sessions[id].flatMap({ routedDevice(of: $0, direction) }), let known = deviceDataSources[device],
            let selected = known.selected
        else { return nil }
        return known.sources.first { $0.id == selected }
    }

    /// The session's choice for its port's device, if it made one.
    public func preferredDataSource(for id: SessionID, _ direction: PortDirection) -> UInt32? {
        guard let state = sessions[id], let device = routedDevice(of: state, direction) else { return nil }
        return state.preferredDataSources[device]
    }

    /// The device of the session's first port in that direction.
    func routedDevice(of state: SessionState, _ direction: PortDirection) -> DeviceID? {
        (direction == .input ? state.route.inputs.first : state.route.outputs.first)?.device
    }

    /// A device's data sources changed (a jack, the card switching its route), or it went (nil).
    mutating func changeDataSources(_ device: DeviceID, _ sources: DeviceDataSources?) {
        deviceDataSources[device] = sources
    }

    /// The route each device should have now, from the active sessions' wishes; selected, and
    /// given back, when that changes. Costs nothing while no session has a wish and nothing is
    /// selected.
    mutating func updateDataSources() {
        guard !dataSourceSessions.isEmpty || !appliedDataSources.isEmpty else { return }
        var choice = DeviceSettingChoice<UInt32>()
        for id in dataSourceSessions.sorted() {
            guard let state = sessions[id], !state.preferredDataSources.isEmpty else {
                dataSourceSessions.remove(id)
                continue
            }
            guard state.activity == .active else { continue }
            for direction in PortDirection.allCases {
                guard let device = routedDevice(of: state, direction), let source = state.preferredDataSources[device],
                    (deviceDataSources[device]?.sources ?? []).contains(where: { $0.id == source })
                else { continue }
                choice.offer(source, for: device, by: state)
            }
        }
        for change in choice.changes(applied: &appliedDataSources) { emit(.selectDataSource(change.device, change.value)) }
    }
}
