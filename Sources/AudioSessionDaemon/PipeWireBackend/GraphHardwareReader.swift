import PipeWireGraph

/// Reads the graph clock from PipeWire's `settings` metadata: `clock.rate`, `clock.quantum`,
/// `clock.allowed-rates` (`[ 44100 48000 ]`), `clock.min-quantum`, `clock.max-quantum`.
/// The `clock.force-*` keys are ours to write and are not read back as limits.
enum GraphHardwareReader {
    static func read(_ snapshot: GraphSnapshot) -> GraphHardware? {
        guard let settings = snapshot.metadata["settings"] else { return nil }
        func integer(_ key: String) -> Int? { settings.value(for: key, subject: 0).flatMap { Int($0) } }
        guard let rate = integer("clock.rate"), let quantum = integer("clock.quantum") else { return nil }
        let allowed = (settings.value(for: "clock.allowed-rates", subject: 0) ?? "")
            .split(whereSeparator: { " [],".contains($0) }).compactMap { Int($0) }
        let minimum = integer("clock.min-quantum") ?? 32
        let maximum = max(minimum, integer("clock.max-quantum") ?? 8192)
        return GraphHardware(
            sampleRate: rate, quantum: quantum, allowedSampleRates: allowed.isEmpty ? [rate] : allowed,
            quantumRange: minimum...maximum)
    }
}
