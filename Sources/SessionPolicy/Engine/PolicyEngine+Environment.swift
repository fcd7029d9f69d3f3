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

    /// The graph runs at these values: every explicit session is told when what it reads
    /// changes.
    mutating func observeHardware(_ rate: Int, _ quantum: Int) {
        guard rate > 0, quantum > 0 else { return }
        changeObservedHardware(to: (rate, quantum))
    }

    /// Nothing runs: sessions read the values the graph will run at (the choice, else the
    /// defaults), as a stopped device still has a configured rate and buffer.
    mutating func observeIdleHardware() {
        changeObservedHardware(to: nil)
    }

    private mutating func changeObservedHardware(to observed: (sampleRate: Int, quantum: Int)?) {
        let before = actualHardware()
        observedHardware = observed
        reportHardware(ifChangedFrom: before)
    }

    /// Tells every explicit session what it reads now, if that is not `before`.
    mutating func reportHardware(ifChangedFrom before: HardwareValues) {
        let values = actualHardware()
        guard values != before else { return }
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
        observeIdleHardware()  // no graph, no clock
        ports = []
        switchingDevices = [:]
        reportedProfiles = [:]
        headsets = [:]
        headsetCalls.forgetHeadsets()  // a new server's headsets have their own profiles
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
            } else if state.activity != .inactive {
                refreshContender(id)  // without streams, a recorder may be one no more
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
