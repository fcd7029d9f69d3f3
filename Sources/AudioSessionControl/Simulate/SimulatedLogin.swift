import SessionBus
import Synchronization

/// A stand-in for systemd-logind on a private bus, for `simulate` (and the tests): what the
/// daemon's logind watcher uses — `Manager.GetSession` / `GetSessionByPID`, the
/// `PrepareForSleep` signal and `Session.LockedHint` — so the screen lock and sleep can be
/// flipped by hand. Its one session is `c7` (give the daemon `XDG_SESSION_ID=c7`).
public final class SimulatedLogin: Sendable {
    public static let sessionID = "c7"
    public static let sessionPath = "/org/freedesktop/login1/session/c7"
    public let connection: BusConnection
    private let manager: BusObject
    private let session: BusObject
    private final class Asked: Sendable { let calls = Mutex<[String]>([]) }
    private let asked = Asked()

    public init(busAddress: String, serviceName: String = "org.freedesktop.login1") async throws {
        connection = try BusConnection(address: busAddress)
        let asked = self.asked
        manager = try connection.export(
            path: "/org/freedesktop/login1",
            interfaces: [
                BusInterface(
                    "org.freedesktop.login1.Manager",
                    methods: [
                        BusMethod("GetSession", inputs: [BusArgument("id", "s")], outputs: [BusArgument("session", "o")]),
                        BusMethod("GetSessionByPID", inputs: [BusArgument("pid", "u")], outputs: [BusArgument("session", "o")]),
                    ],
                    signals: [BusSignalDescription("PrepareForSleep", arguments: [BusArgument("start", "b")])])
            ]
        ) { call in
            asked.calls.withLock { $0.append("\(call.member)(\(call.arguments.first?.description ?? ""))") }
            if call.member == "GetSession", call.arguments.first?.stringValue != SimulatedLogin.sessionID {
                call.fail(BusError(name: "org.freedesktop.login1.NoSuchSession", message: "no such session"))
            } else {
                call.reply([.objectPath(SimulatedLogin.sessionPath)])
            }
        }
        session = try connection.export(
            path: Self.sessionPath,
            interfaces: [BusInterface("org.freedesktop.login1.Session", properties: [BusProperty("LockedHint", "b")])],
            properties: ["org.freedesktop.login1.Session": ["LockedHint": .bool(false)]]
        ) { call in call.fail(.failed("not implemented by the simulated logind")) }
        try await connection.requestName(serviceName)
    }

    /// The calls the daemon made, in order (`GetSession("c7")`).
    public var calls: [String] { asked.calls.withLock { $0 } }

    public func lock(_ locked: Bool) throws {
        try session.setProperty("LockedHint", of: "org.freedesktop.login1.Session", to: .bool(locked))
    }

    public func prepareForSleep(_ starting: Bool) throws {
        try manager.emit("PrepareForSleep", of: "org.freedesktop.login1.Manager", [.bool(starting)])
    }

    public func close() { connection.close() }
}
