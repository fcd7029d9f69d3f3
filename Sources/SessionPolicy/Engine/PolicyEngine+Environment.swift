/// Sleep, hardware reports, and losing / regaining the graph.
extension PolicyEngine {

    /// Waking up: active sessions hear `wakeFromSleep` (implicit ones too, so `monitor` shows
    /// it); routes are re-derived.
    mutating func wake() {
        isAsleep = false
        for id in sessionOrder {
            guard let state = sessions[id], state.activity == .active else { continue }
            emit(.routeChanged(id, reason: .wakeFromSleep, previous: state.route))
        }
        rerouteAll(reason: .wakeFromSleep, lost: [])
    }

    /// The graph runs at these values: tell every explicit session.
    mutating func observeHardware(_ rate: Int, _ quantum: Int) {
        guard rate > 0, quantum > 0 else { return }
        observedHardware = (rate, quantum)
        let values = HardwareArbiter(limits: configuration.hardwareLimits).actualValues(sampleRate: rate, quantum: quantum)
        for id in sessionOrder where sessions[id]?.kind == .explicit {
            emit(.reportHardware(id, values))
        }
    }

    /// PipeWire is gone: every stream and port with it. Sessions stay; implicit ones, whose
    /// activity was their streams, become inactive.
    mutating func loseGraph() {
        guard !isGraphLost else { return }
        isGraphLost = true
        emit(.mediaServicesLost)
        ports = []
        mutedInputs = []
        outputVolumes = [:]
        inputVolumes = [:]
        // The server's devices are gone with whatever we applied to them.
        appliedInputGains = [:]
        appliedDataSources = [:]
        deviceDataSources = [:]
        streamOwners = [:]
        pinnedStreams = [:]
        for id in sessionOrder {
            guard let state = sessions[id] else { continue }
            sessions[id]?.streams = []
            sessions[id]?.captureSilenced = false
            sessions[id]?.route = .empty
            if state.kind == .implicit && state.activity != .inactive {
                leaveContention(id, resumeHint: true)
                emit(.deactivated(id))
            }
        }
        arbitrate(cause: nil)
    }

    /// PipeWire is back: tell the sessions and re-apply every piece of state that lived in
    /// the graph (gains, silencing, the hardware choice). Devices follow as events.
    mutating func restoreGraph() {
        guard isGraphLost else { return }
        isGraphLost = false
        emit(.mediaServicesReset)
        for contender in contenders where contender.isEffective && contender.appliedDuckCount != 0 {
            emit(.setGain(contender.id, gain: gain(forDuckCount: contender.appliedDuckCount), ramp: .zero))
        }
        for id in sessionOrder where sessions[id]?.silenced == true { emit(.setSilenced(id, true)) }
        if hardwareChoice != .systemDefault { emit(.setHardware(hardwareChoice)) }
    }
}
