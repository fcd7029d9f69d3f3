#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// When the daemon is ready, told to its service manager by the `sd_notify` protocol (a datagram
/// to `$NOTIFY_SOCKET`): `READY=1` once it is attached to its audio server and, when it serves
/// the bus, its D-Bus API is up and the media players on the bus are listed (or found out of
/// reach). Before that, a call or a stream could meet a daemon that does not know the graph yet.
///
/// The server can go away and come back: the daemon is not ready meanwhile (`STATUS=` says what
/// it waits for), and sends `READY=1` again when it is attached again. `STOPPING=1` on the way
/// down. Without `$NOTIFY_SOCKET` (run by hand) nothing is sent.
final class Readiness: Sendable {
    enum Part: Hashable, Sendable {
        /// The first full view of the server's graph, handled.
        case attached
        /// The D-Bus session API took its name, or found no bus.
        case sessionAPI
        /// The MPRIS players on the bus are listed, or the bus is out of reach.
        case mediaPlayers
    }

    private struct State {
        var missing: Set<Part>
        var server: String
    }

    private let state: Mutex<State>
    private let send: @Sendable (String) -> Void

    init(
        waitingFor parts: Set<Part>, server: String,
        send: @escaping @Sendable (String) -> Void = { ServiceNotification.send($0) }
    ) {
        state = Mutex(State(missing: parts, server: server))
        self.send = send
    }

    /// Said once at start: what it waits for until it is ready.
    func starting() {
        let server = state.withLock { $0.server }
        send("STATUS=attaching to \(server)")
    }

    /// One part is done; the last one makes the daemon ready.
    func done(_ part: Part) {
        let message: String? = state.withLock { state in
            guard state.missing.remove(part) != nil, state.missing.isEmpty else { return nil }
            return "READY=1\nSTATUS=attached to \(state.server)"
        }
        if let message { send(message) }
    }

    /// The server went away: not ready until it is attached again.
    func serverLost() {
        let server: String? = state.withLock { state in
            state.missing.insert(.attached).inserted ? state.server : nil
        }
        if let server { send("STATUS=waiting for \(server)") }
    }

    /// Follows the server's events (on the loop, after the coordinator handled them).
    func saw(_ event: BackendEvent) {
        switch event {
        case .attached: done(.attached)
        case .lost: serverLost()
        default: break
        }
    }

    func stopping() {
        send("STOPPING=1")
    }
}

/// The `sd_notify` datagram, written here rather than linked from libsystemd: the protocol is one
/// `sendto` on a Unix socket (an abstract one when its name starts with `@`).
enum ServiceNotification {
    static func send(_ message: String, socketPath: String? = getenv("NOTIFY_SOCKET").map { String(cString: $0) }) {
        guard let socketPath, !socketPath.isEmpty, socketPath.hasPrefix("/") || socketPath.hasPrefix("@") else { return }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.enumerated() { bytes[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
        let bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL), socketAddress, length)
            }
        }
    }
}
