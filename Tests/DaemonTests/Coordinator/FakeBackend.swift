import Foundation
import Logging
import PolicyRules
import SessionPolicy

@testable import AudioSessionDaemon

/// A recording ``AudioBackend`` for the coordinator's unit tests: actions are logged, timers
/// run on a ``VirtualLoop`` the test advances. (The integration tests use the real PipeWire backend.)
final class FakeBackend: AudioBackend, @unchecked Sendable {
    enum Action: Equatable {
        case hold(StreamID), release(StreamID), mute(StreamID, Bool), route(StreamID, [DeviceID])
        case holdAhead([StreamID], until: StreamID)
        case forceQuantum(Int?), forceSampleRate(Int?)
        case inputVolume(DeviceID, Double)
        case dataSource(DeviceID, UInt32)
        case headsetProfile(String, Int)
        case linking(Bool)
        case withdrewDefaultMetadata
    }

    private(set) var actions: [Action] = []
    /// The volumes written, by stream: every stream's own volume is 1.0 here, so these are
    /// the policy's factors.
    private(set) var volumes: [StreamID: Float] = [:]
    var gains: [StreamID: Double] { volumes.mapValues(Double.init) }
    private(set) var muted: Set<StreamID> = []
    private(set) var forcedQuantum: Int?
    private(set) var forcedSampleRate: Int?
    var interruptionMethods: Set<InterruptionMethod> = [.unlink, .mute]
    /// As the PipeWire backend: holding needs linking.
    private(set) var configuresDevicePorts = true
    func setLinking(_ links: Bool, configuringDevicePorts: Bool) {
        configuresDevicePorts = configuringDevicePorts
        actions.append(.linking(links))
        interruptionMethods = links ? [.unlink, .mute] : [.mute]
    }

    func withdrawDefaultMetadata() { actions.append(.withdrewDefaultMetadata) }

    func volume(of stream: StreamID) -> Float? { volumes[stream] ?? 1.0 }
    func isMuted(_ stream: StreamID) -> Bool? { muted.contains(stream) }
    func identity(of stream: StreamID) -> UInt64? { UInt64(stream.rawValue) }
    func writeVolume(_ volume: Float, of stream: StreamID) {
        volumes[stream] = volume
        volumeWrites += 1
    }
    /// How many volume writes were made, to any stream.
    private(set) var volumeWrites = 0
    func writeMute(_ muted: Bool, of stream: StreamID) {
        actions.append(.mute(stream, muted))
        if muted { self.muted.insert(stream) } else { self.muted.remove(stream) }
    }
    func forceQuantum(_ frames: Int?) {
        actions.append(.forceQuantum(frames))
        forcedQuantum = frames
    }
    func forceSampleRate(_ hertz: Int?) {
        actions.append(.forceSampleRate(hertz))
        forcedSampleRate = hertz
    }
    /// Input devices' volumes by device (named `mic-<number>`), as their user set them.
    var inputVolumes: [DeviceID: Double] = [:]
    func inputVolume(of device: DeviceID) -> Double? { inputVolumes[device] }
    func writeInputVolume(_ volume: Double, of device: DeviceID) {
        actions.append(.inputVolume(device, volume))
        inputVolumes[device] = volume
    }
    func inputChannelLevels(of device: DeviceID) -> [Double]? { inputVolumes[device].map { [$0, $0] } }
    func writeInputChannelLevels(_ levels: [Double], of device: DeviceID) {
        writeInputVolume(levels.max() ?? 0, of: device)
    }
    func name(of device: DeviceID) -> String? { inputVolumes[device] == nil ? nil : "mic-\(device.rawValue)" }
    func device(named name: String) -> DeviceID? {
        name.hasPrefix("mic-") ? UInt32(name.dropFirst(4)).map { DeviceID(.input, $0) } : nil
    }
    /// Devices' active routes (data sources).
    var selectedDataSources: [DeviceID: UInt32] = [:]
    func selectedDataSource(of device: DeviceID) -> UInt32? { selectedDataSources[device] }
    func selectDataSource(_ source: UInt32, of device: DeviceID) {
        actions.append(.dataSource(device, source))
        selectedDataSources[device] = source
    }
    /// Headsets' active profiles by name (`EnumProfile` indices: 1 A2DP, 2 HFP).
    var headsetProfiles: [String: Int] = [:]
    func activeProfile(ofHeadset device: String) -> Int? { headsetProfiles[device] }
    func profileIndex(_ profile: HeadsetProfile, ofHeadset device: String) -> Int? {
        headsetProfiles[device] == nil ? nil : profile == .call ? 2 : 1
    }
    func selectProfile(_ index: Int, ofHeadset device: String) {
        actions.append(.headsetProfile(device, index))
        headsetProfiles[device] = index
    }
    /// As the PipeWire backend: holds asked during a server event wait for its end, so
    /// ``holdsWaiting`` says so once one was asked (a test's "event" never ends).
    var holdsWaitForTheEvent = false
    private(set) var holdsWaiting = false
    func hold(_ stream: StreamID) {
        actions.append(.hold(stream))
        if holdsWaitForTheEvent { holdsWaiting = true }
    }
    func release(_ stream: StreamID) { actions.append(.release(stream)) }
    func holdAhead(_ streams: [StreamID], until trigger: StreamID) { actions.append(.holdAhead(streams, until: trigger)) }
    func route(_ stream: StreamID, to devices: [DeviceID]) { actions.append(.route(stream, devices)) }
    func preferDefaultDevices(output: DeviceID?, input: DeviceID?) {}
    func pinnedDevice(of stream: StreamID) -> DeviceID? { nil }
    func usePortTypeRule(_ rule: @escaping @Sendable ([String: String]) -> PortType?) {}
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
        _ backend: AudioBackend, loop: VirtualLoop = VirtualLoop(), linkingMode: LinkingMode = .always,
        stateDirectory: URL = .temporaryStateDirectory()
    ) throws -> PolicyCoordinator {
        let locations = RuleLocations.standard(environment: [:], extra: [])
        let rules = try RuleSetLoader(locations: RuleLocations(shipped: locations.shipped, system: "/nonexistent", user: nil)).load()
        return PolicyCoordinator(
            ruleSet: rules, backend: backend, loop: loop, stateDirectory: stateDirectory, linkingMode: linkingMode,
            logger: Logger(label: "test"))
    }
}

extension URL {
    /// A state directory of its own for one test (created when something is journalled), in
    /// this test process's directory, which is removed when the process exits.
    static func temporaryStateDirectory() -> URL {
        TestStateDirectories.root.appendingPathComponent(UUID().uuidString)
    }
}

private enum TestStateDirectories {
    static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("audiosession-test-state-\(getpid())")
        atexit { try? FileManager.default.removeItem(at: TestStateDirectories.root) }
        return root
    }()
}
