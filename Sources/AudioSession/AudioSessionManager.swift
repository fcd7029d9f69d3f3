import SessionBus
import SessionPolicy

/// The daemon's manager object, for tools (`audiosessionctl`) and settings UIs: every session,
/// silent mode, record permissions and the live decision stream.
public final class AudioSessionManager: Sendable {
    private let bus: BusConnection

    /// Connects to the session bus (or `address`); throws when there is no bus.
    public init(address: String? = nil) throws(AudioSessionFailure) {
        bus = try SessionBusAPI.connect(address: address)
    }

    deinit { bus.close() }

    /// Throws `mediaServicesFailed` ("audiosessiond is not running") unless the daemon answers.
    public func ensureRunning() async throws {
        _ = try await property("SilentMode")
    }

    /// Every session the daemon knows (explicit and implicit), as `ListSessions` returns them.
    public func sessions() async throws -> [[String: BusValue]] {
        let reply = try await call("ListSessions")
        return reply.first?.arrayValue?.compactMap(\.dictionaryValue) ?? []
    }

    public func silentMode() async throws -> Bool { try await property("SilentMode").boolValue ?? false }

    /// Whether the user's login session is locked, as logind told the daemon (false from an older
    /// daemon, or without logind): it silences what silent mode does.
    public func screenLocked() async throws -> Bool { (try? await property("ScreenLocked").boolValue) ?? false }

    /// The policy rules in force and how they were last read (nil from an older daemon): whether
    /// an edit of a rules file, or a SIGHUP, took.
    public func rules() async throws -> RulesState? {
        guard let fields = (try? await property("Rules"))?.dictionaryValue else { return nil }
        return RulesState(
            files: fields["files"]?.arrayValue?.compactMap(\.stringValue) ?? [], reads: fields["reads"]?.uint64Value ?? 0,
            reason: fields["reason"]?.stringValue ?? "", outcome: fields["outcome"]?.stringValue ?? "",
            error: fields["error"]?.stringValue ?? "")
    }

    /// Whether the system is going to sleep (logind's `PrepareForSleep`), until it woke.
    public func isAsleep() async throws -> Bool { (try? await property("Asleep").boolValue) ?? false }

    /// Whether the daemon links streams now, and why (`--linking`): "linking streams: no other
    /// session manager (--linking=auto)", "not linking: WirePlumber links streams (--linking=auto)".
    public func linking() async throws -> String { try await property("Linking").stringValue ?? "" }

    /// Who switches Bluetooth headsets to their call profile now, and why (empty from an older
    /// daemon).
    public func headsetSwitching() async throws -> String { (try? await property("HeadsetSwitching").stringValue) ?? "" }

    /// What works against the daemon now, one sentence each with what to do about it (another
    /// session manager's role-based policy ducking and corking the same streams); empty when
    /// nothing does, or from an older daemon.
    public func conflicts() async throws -> [String] {
        (try? await property("Conflicts"))?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The audio server the daemon is attached to: "PipeWire" or "PulseAudio" (empty from an
    /// older daemon).
    public func audioServer() async throws -> String { (try? await property("AudioServer").stringValue) ?? "" }

    public func setSilentMode(_ on: Bool) async throws { try await call("SetSilentMode", [.bool(on)]) }

    /// What the graph's clock runs at (nil from an older daemon, which does not say).
    public func graphClock() async throws -> GraphClock? {
        guard let rate = (try? await property("SampleRate"))?.doubleValue else { return nil }
        return GraphClock(
            sampleRate: rate, ioBufferDuration: try await property("IOBufferDuration").doubleValue ?? 0,
            isRunning: try await property("ClockRunning").boolValue ?? false)
    }

    /// The route a session with no wishes gets now.
    public func currentRoute() async throws -> RouteDescription { RouteDescription(try await property("CurrentRoute")) }

    /// Every port the daemon knows and could route to now: the device outputs and inputs it sees.
    public func availablePorts() async throws -> RouteDescription {
        RouteDescription(
            inputs: PortDescription.list(try await property("AvailableInputs")),
            outputs: PortDescription.list(try await property("AvailableOutputs")))
    }

    public func setRecordPermission(_ permission: RecordPermission, for app: String) async throws {
        try await call("SetRecordPermission", [.string(app), .string(permission.wireName)])
    }

    public func recordPermission(for app: String) async throws -> RecordPermission {
        RecordPermission(wireName: try await call("GetRecordPermission", [.string(app)]).first?.stringValue ?? "") ?? .undetermined
    }

    /// Remembered (granted or denied) permissions by app.
    public func recordPermissions() async throws -> [String: RecordPermission] {
        let entries = try await call("ListRecordPermissions").first?.dictionaryValue ?? [:]
        return entries.compactMapValues { $0.stringValue.flatMap(RecordPermission.init(wireName:)) }
    }

    /// Every signal of the manager (`Decision`, `RouteChange`, `MediaServicesLost`/`Reset`,
    /// `RecordPermissionRequested`), from the moment this returns.
    public func events() async throws -> AsyncStream<BusSignal> {
        do {
            return try await bus.signals(
                sender: SessionBusAPI.busName, path: SessionBusAPI.managerPath, interface: SessionBusAPI.managerInterface)
        } catch let error as BusError {
            throw AudioSessionFailure(error)
        }
    }

    public func close() { bus.close() }

    @discardableResult
    private func call(_ member: String, _ arguments: [BusValue] = []) async throws -> [BusValue] {
        try await SessionBusAPI.call(
            bus, path: SessionBusAPI.managerPath, interface: SessionBusAPI.managerInterface, member: member, arguments,
            timeout: .seconds(10))
    }

    private func property(_ name: String) async throws -> BusValue {
        do {
            return try await bus.property(
                name, of: SessionBusAPI.managerInterface, at: SessionBusAPI.managerPath, on: SessionBusAPI.busName,
                timeout: .seconds(10))
        } catch let error as BusError {
            throw AudioSessionFailure(error)
        }
    }
}

/// The policy rules in force and how they were last read (``AudioSessionManager/rules()``).
public struct RulesState: Sendable, Equatable {
    /// The files in force.
    public var files: [String]
    /// How many times the daemon read them since it started (1: only at start).
    public var reads: UInt64
    /// What made the last read: `start`, `SIGHUP`, `a rules file changed`.
    public var reason: String
    /// `loaded`, `reloaded`, `unchanged`, or `failed` (the previous rules stay).
    public var outcome: String
    /// Why the last read failed: its file, line and what is wrong; empty when it did not.
    public var error: String

    public init(files: [String], reads: UInt64, reason: String, outcome: String, error: String) {
        self.files = files
        self.reads = reads
        self.reason = reason
        self.outcome = outcome
        self.error = error
    }

    /// `12 files; last read (SIGHUP): unchanged`, or the failure's first line.
    public var summary: String {
        let last = outcome == "failed"
            ? "failed, the previous rules stay: \(error.split(separator: "\n").first.map(String.init) ?? error)" : outcome
        return "\(files.count) files; last read (\(reason)): \(last)"
    }
}
