import SessionPolicy

extension PolicyCoordinator {
    /// What the graph's clock accepts changed: the engine arbitrates only among values the
    /// hardware takes (a wish for 192 kHz on a graph that allows up to 96 kHz is snapped to the
    /// nearest allowed rate and reported, not forced). `clock.rate` / `clock.quantum` in the
    /// settings metadata are the configured defaults, not what a running driver uses, so they
    /// are not reported to the engine as observed values.
    func graphHardwareChanged(_ hardware: GraphHardware) {
        let before = engine.configuration.hardwareLimits
        graphHardware = hardware
        let configuration = withGraphLimits(engine.configuration)
        if configuration.hardwareLimits != before {
            logger.info("graph accepts rates \(hardware.allowedSampleRates), quantum \(hardware.quantumRange)")
            reconfigure(configuration)
        }
    }

    /// Swaps the engine's configuration (rules reload, graph limits), keeping the graph's limits.
    func reconfigure(_ configuration: PolicyConfiguration) {
        carryOut(engine.reconfigure(withGraphLimits(configuration), at: now))
    }

    private func withGraphLimits(_ configuration: PolicyConfiguration) -> PolicyConfiguration {
        guard let graphHardware else { return configuration }
        var configuration = configuration
        configuration.hardwareLimits.allowedSampleRates = graphHardware.allowedSampleRates
        configuration.hardwareLimits.quantumRange = graphHardware.quantumRange
        return configuration
    }
}
