import Foundation
import PipeWireSandbox
import SessionBus
import Synchronization
import Testing

/// A private PipeWire, a private session bus and the real `audiosessiond` serving on it.
/// Everything is stopped by PID in `stop()` (and in `deinit`, even when a test fails).
final class ServiceSandbox: @unchecked Sendable {
    let pipewire: PrivatePipeWire
    let bus: PrivateSessionBus
    let daemon: ManagedProcess
    /// Where the daemon says it is ready (`sd_notify`).
    let readiness: ReadinessSocket
    private var connections: [BusConnection] = []
    private let lock = NSLock()

    static let manager = "/org/audiosession/Manager1"
    static let managerInterface = "org.audiosession.Manager1"
    static let sessionInterface = "org.audiosession.Session1"
    static let busName = "org.audiosession.Manager1"

    /// - Parameter rules: a user rules file (policy-rules.d) to start the daemon with.
    init(devices: [VirtualDevice] = VirtualDevice.standard, rules: String? = nil) throws {
        pipewire = try PrivatePipeWire(devices: devices)
        if let rules {
            let directory = pipewire.directory.appendingPathComponent("config/audiosession/policy-rules.d")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try rules.write(to: directory.appendingPathComponent("50-test.conf"), atomically: true, encoding: .utf8)
        }
        do {
            bus = try PrivateSessionBus()
        } catch {
            pipewire.stop()
            throw error
        }
        let state = pipewire.directory.appendingPathComponent("state").path
        let config = pipewire.directory.appendingPathComponent("config").path
        do {
            readiness = try ReadinessSocket(in: pipewire.directory)
            daemon = try pipewire.spawn(
                Self.binary("audiosessiond"), ["--state-dir", state, "--verbose"],
                extraEnvironment: ["XDG_CONFIG_HOME": config, "XDG_STATE_HOME": state] + bus.environment + readiness.environment)
            try readiness.waitUntilReady(of: daemon)
        } catch {
            pipewire.stop()
            bus.stop()
            throw error
        }
    }

    deinit { stop() }

    func stop() {
        for connection in lock.withLock({ connections }) { connection.close() }
        pipewire.stop()
        bus.stop()
    }

    var environment: [String: String] { pipewire.environment.merging(bus.environment) { $1 } }

    /// A new client connection to the private bus (closed by `stop`).
    func connect() throws -> BusConnection {
        let connection = try BusConnection(address: bus.address)
        lock.withLock { connections.append(connection) }
        return connection
    }

    var log: String { daemon.errorOutput }

    func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(10)) throws {
        try waitUntil(timeout: timeout, "the daemon logs '\(text)' (\(count)x); log so far:\n\(log.suffix(4000))") {
            log.components(separatedBy: text).count - 1 >= count
        }
    }

    /// Where SwiftPM put our executables: beside the test bundle.
    static func binary(_ name: String) -> String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(name).path
    }

    /// Runs `audiosessionctl` against this sandbox to completion: (status, stdout, stderr).
    func ctl(_ arguments: [String], timeout: Duration = .seconds(20)) throws -> (status: Int32, output: String, error: String) {
        let process = try pipewire.spawn(Self.binary("audiosessionctl"), arguments, extraEnvironment: bus.environment)
        let status = try process.waitForExit(timeout: timeout)
        return (status, process.output, process.errorOutput)
    }

    /// Starts `audiosessionctl` (for `run` and `monitor`); stopped with the sandbox.
    func spawnCtl(_ arguments: [String]) throws -> ManagedProcess {
        try pipewire.spawn(Self.binary("audiosessionctl"), arguments, extraEnvironment: bus.environment)
    }

    /// The `settings` metadata value of `key` (an independent oracle: pw-dump).
    func setting(_ key: String) throws -> String? { try pipewire.dump().metadataValue("settings", key: key) }
}

extension Dictionary where Key == String, Value == String {
    static func + (lhs: Self, rhs: Self) -> Self { lhs.merging(rhs) { $1 } }
}

/// A session's client side over raw SessionBus calls (what any D-Bus client does).
struct SessionClient {
    let connection: BusConnection
    let path: String

    static func create(on connection: BusConnection, app: String = "tests") async throws -> SessionClient {
        let reply = try await connection.call(
            ServiceSandbox.busName, path: ServiceSandbox.manager, interface: ServiceSandbox.managerInterface,
            member: "CreateSession", [.string(app)], timeout: .seconds(5))
        return SessionClient(connection: connection, path: try #require(reply.first?.stringValue))
    }

    var number: UInt64 { UInt64(path.split(separator: "/").last ?? "") ?? 0 }

    @discardableResult
    func call(_ member: String, _ arguments: [BusValue] = [], timeout: Duration = .seconds(5)) async throws -> [BusValue] {
        try await connection.call(
            ServiceSandbox.busName, path: path, interface: ServiceSandbox.sessionInterface, member: member, arguments,
            timeout: timeout)
    }

    func property(_ name: String) async throws -> BusValue {
        try await connection.property(name, of: ServiceSandbox.sessionInterface, at: path, on: ServiceSandbox.busName, timeout: .seconds(5))
    }

    /// Waits until the property reads `expected`.
    func eventually(_ name: String, is expected: BusValue, timeout: Duration = .seconds(5)) async throws {
        try await waitUntil(timeout: timeout, "\(name) is \(expected)") { () async throws -> Bool in
            try await property(name) == expected
        }
    }

    func setCategory(_ category: String, mode: String = "default", options: UInt32 = 0) async throws {
        try await call("SetCategory", [.string(category), .string(mode), .uint32(options)])
    }

    func setActive(_ active: Bool, options: UInt32 = 0) async throws {
        try await call("SetActive", [.bool(active), .uint32(options)])
    }
}

/// Calls the manager.
func managerCall(_ connection: BusConnection, _ member: String, _ arguments: [BusValue] = []) async throws -> [BusValue] {
    try await connection.call(
        ServiceSandbox.busName, path: ServiceSandbox.manager, interface: ServiceSandbox.managerInterface, member: member,
        arguments, timeout: .seconds(5))
}

/// The sessions `ListSessions` reports, as dictionaries.
func listSessions(_ connection: BusConnection) async throws -> [[String: BusValue]] {
    try await managerCall(connection, "ListSessions").first?.arrayValue?.compactMap(\.dictionaryValue) ?? []
}

/// The error a call failed with (or a test failure if it did not fail).
func busError(_ body: () async throws -> Void) async -> BusError? {
    do {
        try await body()
        return nil
    } catch let error as BusError {
        return error
    } catch {
        return BusError(name: "unexpected", message: "\(error)")
    }
}

/// Collects signals in the background so a test can wait for one with a deadline.
final class SignalRecorder: @unchecked Sendable {
    private let received = Box()
    private var task: Task<Void, Never>?

    /// Shared with the collecting task.
    private final class Box: @unchecked Sendable {
        let lock = NSLock()
        var signals: [BusSignal] = []
    }

    init(_ stream: AsyncStream<BusSignal>) {
        task = Task { [received] in
            for await signal in stream { received.lock.withLock { received.signals.append(signal) } }
        }
    }

    deinit { task?.cancel() }

    var signals: [BusSignal] { received.lock.withLock { received.signals } }

    func waitFor(_ description: String, timeout: Duration = .seconds(10), _ match: (BusSignal) -> Bool) async throws -> BusSignal {
        var found: BusSignal?
        try await waitUntil(timeout: timeout, "signal: \(description); got \(signals.map { "\($0.member)\($0.arguments)" })") { () async throws -> Bool in
            await Task.yield()
            found = signals.first(where: match)
            return found != nil
        }
        return found!
    }
}

/// The app id the daemon vouches for this test process (its sessions' `App`, what record
/// permission is keyed by): its executable's name, whatever name a session is created with.
let ownAppID: String = {
    let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    return URL(fileURLWithPath: path).lastPathComponent
}()
