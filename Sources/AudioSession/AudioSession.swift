import Foundation
import SessionBus
@_exported import SessionPolicy

/// AVAudioSession for Linux: your app's audio session, held by `audiosessiond` over D-Bus.
///
/// ```swift
/// let session = AudioSession.shared
/// try await session.setCategory(.playback)
/// try await session.setActive(true)
/// for await interruption in session.interruptions {
///     if interruption.type == .began { player.pause() }
///     else if interruption.options.contains(.shouldResume) { player.play() }
/// }
/// ```
///
/// The session is created on first use and lives as long as this object's bus connection: when
/// the process exits, the daemon drops it. Streams of this process and its children join it
/// (by process ancestry); set ``streamEnvironment()`` on other players to name it explicitly.
/// Properties are read from the daemon (`get async throws`), so they are always current.
public actor AudioSession {
    /// The session of this process, on the session bus of `DBUS_SESSION_BUS_ADDRESS`.
    public static let shared = AudioSession()

    private let address: String?
    private let appName: String?
    private var bus: BusConnection?
    private var path: String?
    /// The one creation in flight: concurrent first calls share it (the actor is reentrant
    /// across awaits, so checking `path` alone would create two sessions).
    private var creation: Task<(BusConnection, String), any Error>?
    private var pump: Task<Void, Never>?
    private nonisolated let interruptionBroadcast = Broadcast<InterruptionNotification>()
    private nonisolated let routeChangeBroadcast = Broadcast<RouteChangeNotification>()
    private nonisolated let hintBroadcast = Broadcast<SilenceSecondaryAudioHintType>()
    private nonisolated let remoteCommandBroadcast = Broadcast<RemoteCommand>()
    private nonisolated let lostBroadcast = Broadcast<Void>()
    private nonisolated let resetBroadcast = Broadcast<Void>()

    /// - Parameters:
    ///   - address: a D-Bus address; `nil` for the user session bus.
    ///   - app: the session's label, the name people see; `nil` for the process name. Record
    ///     permission is kept under the app id the system vouches for (the Flatpak id, the
    ///     desktop's app unit, else the program's name), never under this name.
    public init(address: String? = nil, app: String? = nil) {
        self.address = address
        self.appName = app
    }

    // MARK: - Notifications (each access is a new listener; subscribe before activating)

    /// `interruptionNotification`.
    public nonisolated var interruptions: AsyncStream<InterruptionNotification> { interruptionBroadcast.stream() }
    /// `routeChangeNotification`.
    public nonisolated var routeChanges: AsyncStream<RouteChangeNotification> { routeChangeBroadcast.stream() }
    /// `silenceSecondaryAudioHintNotification` (only while this session is active).
    public nonisolated var silenceSecondaryAudioHints: AsyncStream<SilenceSecondaryAudioHintType> { hintBroadcast.stream() }
    /// Media keys and headset buttons, while this session is the current media player
    /// (``isNowPlaying``): what `MPRemoteCommandCenter` delivers on iOS.
    public nonisolated var remoteCommands: AsyncStream<RemoteCommand> { remoteCommandBroadcast.stream() }
    /// `mediaServicesWereLostNotification`: PipeWire went away.
    public nonisolated var mediaServicesWereLost: AsyncStream<Void> { lostBroadcast.stream() }
    /// `mediaServicesWereResetNotification`: PipeWire is back; reactivate.
    public nonisolated var mediaServicesWereReset: AsyncStream<Void> { resetBroadcast.stream() }

    // MARK: - Configuration

    /// Sets category, mode and options together (options are not sticky: they reset to these).
    public func setCategory(_ category: Category, mode: Mode = .default, options: CategoryOptions = []) async throws {
        try await call(
            "SetCategory", [.string(category.wireName), .string(mode.wireName), .uint32(UInt32(truncatingIfNeeded: options.rawValue))])
    }

    /// Asks the control tower to activate (it may refuse: `insufficientPriority`) or deactivate
    /// (refused with `isBusy` while the session's audio still runs: stop it first).
    public func setActive(_ active: Bool, options: SetActiveOptions = []) async throws {
        try await call("SetActive", [.bool(active), .uint32(UInt32(truncatingIfNeeded: options.rawValue))])
    }

    /// A hint, in Hz (0 clears it); read ``sampleRate`` after activating.
    public func setPreferredSampleRate(_ hz: Double) async throws {
        try await call("SetPreferredSampleRate", [.double(hz)])
    }

    /// A hint, in seconds (0 clears it); read ``ioBufferDuration`` after activating.
    public func setPreferredIOBufferDuration(_ seconds: Double) async throws {
        try await call("SetPreferredIOBufferDuration", [.double(seconds)])
    }

    /// One of ``availableInputs``, or `nil` to clear the preference.
    public func setPreferredInput(_ input: PortDescription?) async throws {
        try await call("SetPreferredInput", [.string(input?.uid ?? "")])
    }

    /// `.speaker` or `.none` (playAndRecord only; lasts until the next route change).
    public func overrideOutputAudioPort(_ port: OutputOverride) async throws {
        try await call("OverrideOutputAudioPort", [.string(port.wireName)])
    }

    /// Only while active, up to ``maximumInputNumberOfChannels``; `nil` clears. Kept and reported:
    /// streams get the channels they open, so ``inputNumberOfChannels`` stays the device's.
    public func setPreferredInputNumberOfChannels(_ count: Int?) async throws {
        try await call("SetPreferredInputNumberOfChannels", [.uint32(UInt32(count ?? 0))])
    }
    public func setPreferredOutputNumberOfChannels(_ count: Int?) async throws {
        try await call("SetPreferredOutputNumberOfChannels", [.uint32(UInt32(count ?? 0))])
    }
    public var preferredInputNumberOfChannels: Int {
        get async throws { Int(try await property("PreferredInputNumberOfChannels").uint32Value ?? 0) }
    }
    public var preferredOutputNumberOfChannels: Int {
        get async throws { Int(try await property("PreferredOutputNumberOfChannels").uint32Value ?? 0) }
    }

    /// Notification sounds neither duck nor interrupt this session (default false).
    public func setPrefersNoInterruptionsFromSystemAlerts(_ prefers: Bool) async throws {
        try await call("SetPrefersNoInterruptionsFromSystemAlerts", [.bool(prefers)])
    }
    public var prefersNoInterruptionsFromSystemAlerts: Bool {
        get async throws { try await property("PrefersNoInterruptionsFromSystemAlerts").boolValue ?? false }
    }

    /// As the current media player, losing the output interrupts the session
    /// (``InterruptionReason/routeDisconnected``) instead of only changing its route (default true).
    public func setPrefersInterruptionOnRouteDisconnect(_ prefers: Bool) async throws {
        try await call("SetPrefersInterruptionOnRouteDisconnect", [.bool(prefers)])
    }
    public var prefersInterruptionOnRouteDisconnect: Bool {
        get async throws { try await property("PrefersInterruptionOnRouteDisconnect").boolValue ?? true }
    }

    /// Lets notification sounds play while this session records (default false: silenced).
    public func setAllowHapticsAndSystemSoundsDuringRecording(_ allow: Bool) async throws {
        try await call("SetAllowHapticsAndSystemSoundsDuringRecording", [.bool(allow)])
    }
    public var allowHapticsAndSystemSoundsDuringRecording: Bool {
        get async throws { try await property("AllowHapticsAndSystemSoundsDuringRecording").boolValue ?? false }
    }

    /// Returns at once when the user decided already; otherwise waits (up to `timeout`) until
    /// they answer with `audiosessionctl permission grant|deny APP` or a UI.
    public func requestRecordPermission(timeout: Duration = .seconds(120)) async throws -> Bool {
        let reply = try await call("RequestRecordPermission", [], timeout: timeout)
        return reply.first?.boolValue ?? false
    }

    /// Ends the session now (it also ends when the process exits).
    public func close() async {
        if let path, let bus {
            _ = try? await SessionBusAPI.call(bus, path: path, interface: SessionBusAPI.sessionInterface, member: "Close")
        }
        pump?.cancel()
        bus?.close()
        bus = nil
        path = nil
    }

    // MARK: - Properties

    public var category: Category { get async throws { Category(wireName: try await string("Category")) ?? .soloAmbient } }
    public var mode: Mode { get async throws { Mode(wireName: try await string("Mode")) ?? .default } }
    public var categoryOptions: CategoryOptions {
        get async throws { CategoryOptions(rawValue: UInt(try await property("Options").uint32Value ?? 0)) }
    }
    public var isActive: Bool { get async throws { try await property("Active").boolValue ?? false } }
    public var sampleRate: Double { get async throws { try await double("SampleRate") } }
    public var preferredSampleRate: Double { get async throws { try await double("PreferredSampleRate") } }
    public var ioBufferDuration: Double { get async throws { try await double("IOBufferDuration") } }
    public var preferredIOBufferDuration: Double { get async throws { try await double("PreferredIOBufferDuration") } }
    public var inputLatency: Double { get async throws { try await double("InputLatency") } }
    public var outputLatency: Double { get async throws { try await double("OutputLatency") } }
    public var inputNumberOfChannels: Int { get async throws { Int(try await property("InputNumberOfChannels").uint32Value ?? 0) } }
    public var outputNumberOfChannels: Int { get async throws { Int(try await property("OutputNumberOfChannels").uint32Value ?? 0) } }
    public var isOtherAudioPlaying: Bool { get async throws { try await property("OtherAudioPlaying").boolValue ?? false } }
    public var secondaryAudioShouldBeSilencedHint: Bool {
        get async throws { try await property("SecondaryAudioShouldBeSilencedHint").boolValue ?? false }
    }
    public var recordPermission: RecordPermission {
        get async throws { RecordPermission(wireName: try await string("RecordPermission")) ?? .undetermined }
    }
    public var currentRoute: RouteDescription { get async throws { RouteDescription(try await property("CurrentRoute")) } }
    /// Inputs for the current category (empty for output-only categories).
    public var availableInputs: [PortDescription] { get async throws { PortDescription.list(try await property("AvailableInputs")) } }
    public var preferredInput: PortDescription? {
        get async throws {
            let uid = try await string("PreferredInput")
            return uid.isEmpty ? nil : try await availableInputs.first { $0.uid == uid }
        }
    }

    /// `isInputAvailable`: a microphone or line in is there (whatever the category).
    public var isInputAvailable: Bool { get async throws { try await property("IsInputAvailable").boolValue ?? false } }
    /// `outputVolume`: the user's volume of the session's output device, 0…1 as their volume
    /// control shows it (0 while muted). Read-only: the user's volume governs.
    public var outputVolume: Double { get async throws { try await property("OutputVolume").doubleValue ?? 0 } }
    /// `inputGain`: the volume of the session's input device, 0…1 as its volume control shows it.
    public var inputGain: Double { get async throws { try await property("InputGain").doubleValue ?? 1 } }
    /// Whether every input the session records from is muted by its user (the mute key): what
    /// it records is silence (false for a session without input, or from an older daemon).
    public var isInputMuted: Bool { get async throws { (try? await property("InputMuted").boolValue) ?? false } }
    /// `isInputGainSettable`: the session records (its category has input) from a device with a
    /// volume control.
    public var isInputGainSettable: Bool {
        get async throws { try await property("IsInputGainSettable").boolValue ?? false }
    }
    /// `setInputGain(_:)`: the input device's volume while this session is active; its user's
    /// volume comes back after (and stays, if they change it meanwhile). Throws `badParam` outside
    /// 0…1, `incompatibleCategory` without input, `resourceNotAvailable` when not settable.
    public func setInputGain(_ gain: Double) async throws {
        try await call("SetInputGain", [.double(gain)])
    }
    /// `inputDataSources`: the data sources of the session's input port — its card's input
    /// routes that can be chosen now (empty for a device without routes).
    public var inputDataSources: [DataSourceDescription] {
        get async throws { DataSourceDescription.list(try await property("InputDataSources")) }
    }
    /// `inputDataSource`: the one the card has active now.
    public var inputDataSource: DataSourceDescription? {
        get async throws { try await dataSource("InputDataSource", among: inputDataSources) }
    }
    /// `setInputDataSource(_:)`: the card's route while this session is active (the route it
    /// had comes back after); `nil` clears the choice. Throws `badParam` for one that is not in
    /// ``inputDataSources``.
    public func setInputDataSource(_ source: DataSourceDescription?) async throws {
        try await call("SetInputDataSource", [.int32(source.map { Int32(truncatingIfNeeded: $0.dataSourceID) } ?? -1)])
    }
    /// `outputDataSources`, `outputDataSource` and `setOutputDataSource(_:)`: the same for the
    /// session's output port.
    public var outputDataSources: [DataSourceDescription] {
        get async throws { DataSourceDescription.list(try await property("OutputDataSources")) }
    }
    public var outputDataSource: DataSourceDescription? {
        get async throws { try await dataSource("OutputDataSource", among: outputDataSources) }
    }
    public func setOutputDataSource(_ source: DataSourceDescription?) async throws {
        try await call("SetOutputDataSource", [.int32(source.map { Int32(truncatingIfNeeded: $0.dataSourceID) } ?? -1)])
    }

    private func dataSource(_ name: String, among sources: [DataSourceDescription]) async throws -> DataSourceDescription? {
        let id = try await property(name).int32Value ?? -1
        return id < 0 ? nil : sources.first { $0.dataSourceID == UInt32(id) }
    }
    /// The most input channels the current route's devices take.
    public var maximumInputNumberOfChannels: Int {
        get async throws { Int(try await property("MaximumInputNumberOfChannels").uint32Value ?? 0) }
    }
    /// The most output channels the current route's devices take.
    public var maximumOutputNumberOfChannels: Int {
        get async throws { Int(try await property("MaximumOutputNumberOfChannels").uint32Value ?? 0) }
    }
    /// `promptStyle`: the prompts a navigation or workout app should play now (`none` while
    /// something records, `short` during a call, else `normal`).
    public var promptStyle: PromptStyle {
        get async throws {
            let name = try await string("PromptStyle")
            return PromptStyle.allCases.first { $0.wireName == name } ?? .normal
        }
    }
    /// Whether this session is the current media player: the one that most recently became
    /// active with non-mixable `playback` audio; media keys reach it (``remoteCommands``).
    public var isNowPlaying: Bool { get async throws { try await property("IsNowPlaying").boolValue ?? false } }
    /// The daemon's number for this session (`audiosession.id` on streams).
    public var sessionID: UInt64 { get async throws { try await property("Id").uint64Value ?? 0 } }

    /// Environment that makes a PipeWire or PulseAudio client's streams join this session
    /// (for players that are not children of this process, or to be explicit).
    public func streamEnvironment() async throws -> [String: String] {
        let id = try await sessionID
        return ["PIPEWIRE_PROPS": "{ audiosession.id = \(id) }", "PULSE_PROP": "audiosession.id=\(id)"]
    }

    // MARK: - Plumbing

    private func string(_ name: String) async throws -> String { try await property(name).stringValue ?? "" }
    private func double(_ name: String) async throws -> Double { try await property(name).doubleValue ?? 0 }

    private func property(_ name: String) async throws -> BusValue {
        let (bus, path) = try await session()
        do {
            return try await bus.property(name, of: SessionBusAPI.sessionInterface, at: path, on: SessionBusAPI.busName)
        } catch let error as BusError {
            throw AudioSessionFailure(error)
        }
    }

    @discardableResult
    private func call(_ member: String, _ arguments: [BusValue], timeout: Duration = .seconds(25)) async throws -> [BusValue] {
        let (bus, path) = try await session()
        return try await SessionBusAPI.call(
            bus, path: path, interface: SessionBusAPI.sessionInterface, member: member, arguments, timeout: timeout)
    }

    private func session() async throws -> (BusConnection, String) {
        if let bus, let path { return (bus, path) }
        if let creation { return try await creation.value }
        let task = Task { try await self.createSession() }
        creation = task
        defer { creation = nil }
        return try await task.value
    }

    /// Connects, subscribes to the signals, then creates the session: nothing sent to it is missed.
    private func createSession() async throws -> (BusConnection, String) {
        let bus = try SessionBusAPI.connect(address: address)
        let sessionSignals = try await bus.signals(sender: SessionBusAPI.busName, interface: SessionBusAPI.sessionInterface)
        let lost = try await bus.signals(sender: SessionBusAPI.busName, interface: SessionBusAPI.managerInterface, member: "MediaServicesLost")
        let reset = try await bus.signals(sender: SessionBusAPI.busName, interface: SessionBusAPI.managerInterface, member: "MediaServicesReset")
        let reply = try await SessionBusAPI.call(
            bus, path: SessionBusAPI.managerPath, interface: SessionBusAPI.managerInterface, member: "CreateSession",
            [.string(appName ?? "")])
        guard let path = reply.first?.stringValue else {
            bus.close()
            throw AudioSessionFailure(code: .unspecified, name: "", message: "malformed CreateSession reply")
        }
        self.bus = bus
        self.path = path
        let broadcasts = Broadcasts(
            interruptions: interruptionBroadcast, routes: routeChangeBroadcast, hints: hintBroadcast, remoteCommands: remoteCommandBroadcast)
        let (lostBroadcast, resetBroadcast) = (self.lostBroadcast, self.resetBroadcast)
        pump = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await signal in sessionSignals where signal.path == path {
                        Self.deliver(signal, to: broadcasts)
                    }
                }
                group.addTask { for await _ in lost { lostBroadcast.send(()) } }
                group.addTask { for await _ in reset { resetBroadcast.send(()) } }
            }
        }
        return (bus, path)
    }

    /// Where the session's signals go.
    private struct Broadcasts: Sendable {
        let interruptions: Broadcast<InterruptionNotification>
        let routes: Broadcast<RouteChangeNotification>
        let hints: Broadcast<SilenceSecondaryAudioHintType>
        let remoteCommands: Broadcast<RemoteCommand>
    }

    private static func deliver(_ signal: BusSignal, to broadcasts: Broadcasts) {
        let (interruptions, routes, hints) = (broadcasts.interruptions, broadcasts.routes, broadcasts.hints)
        let numbers = signal.arguments.map { $0.uint32Value.map(UInt.init) }
        switch signal.member {
        case "Interruption" where numbers.count == 3:
            guard let type = numbers[0].flatMap(InterruptionType.init(rawValue:)) else { return }
            interruptions.send(InterruptionNotification(
                type: type, reason: numbers[1].flatMap(InterruptionReason.init(rawValue:)) ?? .default,
                options: InterruptionOptions(rawValue: numbers[2] ?? 0)))
        case "RouteChange" where signal.arguments.count == 2:
            routes.send(RouteChangeNotification(
                reason: numbers[0].flatMap(RouteChangeReason.init(rawValue:)),
                previousRoute: RouteDescription(signal.arguments[1])))
        case "SilenceSecondaryAudioHint":
            if let type = numbers.first?.flatMap(SilenceSecondaryAudioHintType.init(rawValue:)) { hints.send(type) }
        case "RemoteCommand":
            if let command = signal.arguments.first?.stringValue.flatMap(RemoteCommand.init(rawValue:)) {
                broadcasts.remoteCommands.send(command)
            }
        default:
            break
        }
    }
}
