import SessionPolicy

extension PolicyCoordinator {
    /// What the graph's clock accepts changed (``PolicyConfiguration/accepting(sampleRates:quantumRange:)``).
    /// The server's configured defaults are not what a running driver uses, so they are not
    /// reported to the engine as observed values.
    func graphHardwareChanged(_ hardware: GraphHardware) {
        let limits = GraphLimits(sampleRates: hardware.allowedSampleRates, quantumRange: hardware.quantumRange)
        guard let decisions = engine.graphAccepts(limits, at: now) else { return }
        logger.info("graph accepts rates \(hardware.allowedSampleRates), quantum \(hardware.quantumRange)")
        carryOut(decisions)
    }

    /// What the graph's clock runs at now (nil: nothing runs): what sessions are told, as the
    /// engine decides.
    func clockObserved(_ clock: RunningClock?) {
        if let clock {
            logger.info("the graph runs at \(clock)")
            submit(.hardwareObserved(sampleRate: clock.sampleRate, quantum: clock.quantum))
        } else {
            logger.info("nothing runs: sessions are told the values the graph will run at")
            submit(.hardwareIdle)
        }
    }

    /// Swaps the rules' configuration (a rules reload); the engine keeps the graph's limits.
    func reconfigure(_ configuration: PolicyConfiguration) {
        carryOut(engine.reconfigure(configuration, at: now))
    }
}
