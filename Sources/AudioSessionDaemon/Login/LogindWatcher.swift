import Logging
import SessionBus

/// What logind tells the policy.
enum LoginEvent: Hashable, Sendable {
    /// The user's session was locked or unlocked (`LockedHint`).
    case screenLocked(Bool)
    /// `PrepareForSleep(true)`: the system is about to suspend.
    case sleep
    /// `PrepareForSleep(false)`: it resumed.
    case wake
}

/// Where logind lives. Parameters, not constants, so tests can point the watcher at a fake
/// login1 they serve themselves on a private bus.
struct LogindNames: Sendable {
    var service = "org.freedesktop.login1"
    var managerPath = "/org/freedesktop/login1"
    var managerInterface = "org.freedesktop.login1.Manager"
    var sessionInterface = "org.freedesktop.login1.Session"

    static let standard = LogindNames()
}

/// Watches logind on the system bus: our session's `LockedHint` and the Manager's
/// `PrepareForSleep`. Mechanism only; events go to `deliver`, which hops to the policy loop.
final class LogindWatcher: Sendable {
    let bus: BusConnection
    let names: LogindNames
    private let logger: Logger

    init(bus: BusConnection, names: LogindNames = .standard, logger: Logger) {
        self.bus = bus
        self.names = names
        self.logger = logger
    }

    /// Finds our session (`GetSession(XDG_SESSION_ID)` when given, else `GetSessionByPID`),
    /// subscribes, then reports the current lock state; returns the session's object path.
    @discardableResult
    func start(
        sessionID: String?, processID: UInt32, _ deliver: @escaping @Sendable (LoginEvent) -> Void
    ) async throws -> String {
        let sleeps = try await bus.signals(
            path: names.managerPath, interface: names.managerInterface, member: "PrepareForSleep")
        let sessionPath: String
        if let sessionID, !sessionID.isEmpty {
            sessionPath = try await managerCall("GetSession", [.string(sessionID)])
        } else {
            sessionPath = try await managerCall("GetSessionByPID", [.uint32(processID)])
        }
        let changes = try await bus.signals(
            path: sessionPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        let sessionInterface = names.sessionInterface
        Task {
            for await signal in sleeps {
                guard let starting = signal.arguments.first?.boolValue else { continue }
                deliver(starting ? .sleep : .wake)
            }
        }
        // The tasks hold the watcher: it lives as long as its bus connection.
        Task {
            for await signal in changes {
                guard signal.arguments.count >= 2, signal.arguments[0].stringValue == sessionInterface else { continue }
                if let locked = signal.arguments[1].dictionaryValue?["LockedHint"]?.boolValue {
                    deliver(.screenLocked(locked))
                } else if signal.arguments.count >= 3,
                    signal.arguments[2].arrayValue?.contains(.string("LockedHint")) == true,
                    let locked = await self.lockedHint(at: sessionPath)
                {
                    deliver(.screenLocked(locked))
                }
            }
        }
        if let locked = await lockedHint(at: sessionPath) { deliver(.screenLocked(locked)) }
        logger.info("watching logind session \(sessionPath) (lock) and sleep")
        return sessionPath
    }

    private func lockedHint(at path: String) async -> Bool? {
        try? await bus.property("LockedHint", of: names.sessionInterface, at: path, on: names.service, timeout: .seconds(2))
            .boolValue
    }

    private func managerCall(_ member: String, _ arguments: [BusValue]) async throws -> String {
        let reply = try await bus.call(
            names.service, path: names.managerPath, interface: names.managerInterface, member: member, arguments,
            timeout: .seconds(2))
        guard let path = reply.first?.stringValue else { throw BusError.failed("\(member) returned no session path") }
        return path
    }
}
