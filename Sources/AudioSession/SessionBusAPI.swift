import SessionBus

/// Where the daemon serves the session API (see `docs/dbus-api.md`).
public enum SessionBusAPI {
    public static let busName = "org.audiosession.Manager1"
    public static let managerPath = "/org/audiosession/Manager1"
    public static let managerInterface = "org.audiosession.Manager1"
    public static let sessionInterface = "org.audiosession.Session1"

    /// Opens the session bus (`DBUS_SESSION_BUS_ADDRESS`) or the bus at `address`.
    static func connect(address: String?) throws(AudioSessionFailure) -> BusConnection {
        do {
            if let address { return try BusConnection(address: address) }
            return try BusConnection.session()
        } catch {
            throw AudioSessionFailure(
                code: .mediaServicesFailed, name: error.name,
                message: "no D-Bus session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set?")
        }
    }

    /// Runs a call, turning bus errors into ``AudioSessionFailure``s.
    static func call(
        _ bus: BusConnection, path: String, interface: String, member: String, _ arguments: [BusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws -> [BusValue] {
        do {
            return try await bus.call(busName, path: path, interface: interface, member: member, arguments, timeout: timeout)
        } catch let error as BusError {
            throw AudioSessionFailure(error)
        }
    }
}
