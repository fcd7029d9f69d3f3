import Foundation
import Synchronization

/// The service manager's end of the `sd_notify` protocol, for a daemon a test or the demo
/// starts: a datagram socket whose path goes in the daemon's `NOTIFY_SOCKET`. What the daemon
/// says there (`READY=1` once attached and serving, `STATUS=`, `STOPPING=1`) is state it
/// publishes, read instead of its log's wording.
public final class ReadinessSocket: Sendable {
    public let path: String
    private let descriptor: Int32
    private let received = Mutex<[String]>([])

    /// A socket in `directory` (its path must fit a Unix socket address: under 108 bytes).
    public init(in directory: URL) throws {
        path = directory.appendingPathComponent("notify-\(UUID().uuidString.prefix(8))").path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw SandboxError.commandFailed("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw SandboxError.commandFailed("notify socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let error = errno
            close(descriptor)
            throw SandboxError.commandFailed("bind \(path): errno \(error)")
        }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// The environment a daemon needs to talk to this socket.
    public var environment: [String: String] { ["NOTIFY_SOCKET": path] }

    /// Every message received so far, oldest first (each `KEY=value` line on its own).
    public var messages: [String] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            let text = String(decoding: buffer[0..<count], as: UTF8.self)
            received.withLock { $0.append(contentsOf: text.split(separator: "\n").map(String.init)) }
        }
        return received.withLock { $0 }
    }

    /// How many times the daemon said `READY=1`: once at start, once more at each re-attach.
    public var readyCount: Int { messages.filter { $0 == "READY=1" }.count }

    /// Waits until `daemon` (the process given this socket) has said `READY=1` `count` times. A
    /// daemon that dies meanwhile fails the wait at once, saying how it ended (a crash's
    /// backtrace included) and what it logged.
    public func waitUntilReady(of daemon: ManagedProcess, count: Int = 1, timeout: Duration = .seconds(10)) throws {
        try waitUntil(timeout: timeout, poll: .milliseconds(5), failure(count, daemon)) {
            try isReady(count, daemon)
        }
    }

    /// The async form: suspends between polls.
    public func waitUntilReady(of daemon: ManagedProcess, count: Int = 1, timeout: Duration = .seconds(10)) async throws {
        try await waitUntil(timeout: timeout, poll: .milliseconds(5), failure(count, daemon)) { () async throws -> Bool in
            try isReady(count, daemon)
        }
    }

    private func isReady(_ count: Int, _ daemon: ManagedProcess) throws -> Bool {
        guard daemon.isRunning else { throw SandboxError.notRunning("\(daemon.describeEnd()); its log:\n\(daemon.errorOutput)") }
        return readyCount >= count
    }

    private func failure(_ count: Int, _ daemon: ManagedProcess) -> String {
        "the daemon is ready (READY=1 \(count)x; it said \(messages)); its log:\n\(daemon.errorOutput)"
    }
}
