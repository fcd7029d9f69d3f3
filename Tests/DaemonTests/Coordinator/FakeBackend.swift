import Logging
import PolicyRules
import SessionPolicy

@testable import AudioSessionDaemon

/// A recording ``AudioBackend`` for the coordinator's unit tests: actions are logged, timers
/// run on a ``VirtualLoop`` the test advances. (The integration tests use the real PipeWire backend.)
final class FakeBackend: AudioBackend, @unchecked Sendable {
    enum Action: Equatable {
        case hold(UInt32), release(UInt32), mute(UInt32, Bool), route(UInt32, [UInt32]), hardware(HardwareChoice)
        case linking(Bool)
    }

    private(set) var actions: [Action] = []
    private(set) var gains: [UInt32: Double] = [:]
    var interruptionMethods: Set<InterruptionMethod> = [.unlink, .mute]
    /// As the PipeWire backend: holding needs linking.
    func setLinking(_ links: Bool) {
        actions.append(.linking(links))
        interruptionMethods = links ? [.unlink, .mute] : [.mute]
    }

    func setGainFactor(_ factor: Double, of stream: UInt32) { gains[stream] = factor }
    /// Streams whose gain the fake "server" ramps itself; the ramps asked of it, in order.
    var nativeRampStreams: Set<UInt32> = []
    private(set) var nativeRamps: [(stream: UInt32, ramp: DuckingRamp)] = []
    func rampsGainNatively(_ stream: UInt32) -> Bool { nativeRampStreams.contains(stream) }
    func rampGainFactor(along ramp: DuckingRamp, of stream: UInt32) {
        nativeRamps.append((stream, ramp))
        gains[stream] = ramp.to
    }
    func hold(_ stream: UInt32) { actions.append(.hold(stream)) }
    func release(_ stream: UInt32) { actions.append(.release(stream)) }
    func route(_ stream: UInt32, to devices: [UInt32]) { actions.append(.route(stream, devices)) }
    func preferDefaultDevices(output: UInt32?, input: UInt32?) {}
    func pinnedDevice(of stream: UInt32) -> UInt32? { nil }
    func usePortTypeRule(_ rule: @escaping @Sendable ([String: String]) -> PortType?) {}
    func setMutedByPolicy(_ muted: Bool, stream: UInt32) { actions.append(.mute(stream, muted)) }
    func applyHardware(_ choice: HardwareChoice) { actions.append(.hardware(choice)) }
    /// Whether the fake can watch levels (a backend that cannot says so).
    var metersLevels = true
    private(set) var watchedLevels: Set<UInt32> = []
    func watchLevel(of stream: UInt32, threshold: Float) -> Bool {
        guard metersLevels else { return false }
        watchedLevels.insert(stream)
        return true
    }
    func stopWatchingLevel(of stream: UInt32) { watchedLevels.remove(stream) }

    func clearActions() { actions.removeAll() }
}

extension PolicyCoordinator {
    /// A coordinator on the shipped rules (none from /etc or the user) and `backend`.
    static func onShippedRules(
        _ backend: FakeBackend, loop: VirtualLoop = VirtualLoop(), linkingMode: LinkingMode = .always
    ) throws -> PolicyCoordinator {
        let locations = RuleLocations.standard(environment: [:], extra: [])
        let rules = try RuleSetLoader(locations: RuleLocations(shipped: locations.shipped, system: "/nonexistent", user: nil)).load()
        return PolicyCoordinator(ruleSet: rules, backend: backend, loop: loop, linkingMode: linkingMode, logger: Logger(label: "test"))
    }
}
