import Logging
import PolicyRules
import SessionPolicy

@testable import AudioSessionDaemon

/// A recording ``AudioBackend`` for the coordinator's unit tests: actions are logged, timers
/// run on a ``VirtualLoop`` the test advances. (The integration tests use the real PipeWire backend.)
final class FakeBackend: AudioBackend, @unchecked Sendable {
    enum Action: Equatable {
        case hold(StreamID), release(StreamID), mute(StreamID, Bool), route(StreamID, [DeviceID]), hardware(HardwareChoice)
        case linking(Bool)
    }

    private(set) var actions: [Action] = []
    private(set) var gains: [StreamID: Double] = [:]
    var interruptionMethods: Set<InterruptionMethod> = [.unlink, .mute]
    /// As the PipeWire backend: holding needs linking.
    func setLinking(_ links: Bool) {
        actions.append(.linking(links))
        interruptionMethods = links ? [.unlink, .mute] : [.mute]
    }

    func setGainFactor(_ factor: Double, of stream: StreamID) { gains[stream] = factor }
    /// Streams whose gain the fake "server" ramps itself; the ramps asked of it, in order.
    var nativeRampStreams: Set<StreamID> = []
    private(set) var nativeRamps: [(stream: StreamID, ramp: DuckingRamp)] = []
    func rampsGainNatively(_ stream: StreamID) -> Bool { nativeRampStreams.contains(stream) }
    func rampGainFactor(along ramp: DuckingRamp, of stream: StreamID) {
        nativeRamps.append((stream, ramp))
        gains[stream] = ramp.to
    }
    func hold(_ stream: StreamID) { actions.append(.hold(stream)) }
    func release(_ stream: StreamID) { actions.append(.release(stream)) }
    func route(_ stream: StreamID, to devices: [DeviceID]) { actions.append(.route(stream, devices)) }
    func preferDefaultDevices(output: DeviceID?, input: DeviceID?) {}
    func pinnedDevice(of stream: StreamID) -> DeviceID? { nil }
    func usePortTypeRule(_ rule: @escaping @Sendable ([String: String]) -> PortType?) {}
    func setMutedByPolicy(_ muted: Bool, stream: StreamID) { actions.append(.mute(stream, muted)) }
    func applyHardware(_ choice: HardwareChoice) { actions.append(.hardware(choice)) }
    /// Whether the fake can watch levels (a backend that cannot says so).
    var metersLevels = true
    private(set) var watchedLevels: Set<StreamID> = []
    func watchLevel(of stream: StreamID, threshold: Float) -> Bool {
        guard metersLevels else { return false }
        watchedLevels.insert(stream)
        return true
    }
    func stopWatchingLevel(of stream: StreamID) { watchedLevels.remove(stream) }

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
