// PrivateSessionBus: a private dbus-daemon (session-bus semantics, its own socket in a temp dir)
// for tests and the demo, so nothing ever touches the user's session bus. Stopped by PID.

import Foundation

/// A private D-Bus session bus daemon, started as a ``ManagedProcess`` (stopped by PID on
/// `stop()`, on `deinit`, and at process exit).
///
/// ```swift
/// let bus = try PrivateSessionBus()
/// defer { bus.stop() }
/// // clients: DBUS_SESSION_BUS_ADDRESS=\(bus.address), or busctl --address=\(bus.address)
/// ```
public final class PrivateSessionBus: @unchecked Sendable {
    /// The D-Bus address clients connect to (`unix:path=…`).
    public let address: String
    /// The temporary directory holding the socket, the configuration and the daemon's logs.
    public let directory: URL
    private let daemon: ManagedProcess
    private let lock = NSLock()
    private var stopped = false

    /// The dbus-daemon's process id.
    public var pid: Int32 { daemon.pid }

    /// Environment entries that point clients at this bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// Starts `dbus-daemon` and returns once it listens (it prints its address), or throws after
    /// `timeout` with its error output.
    public init(timeout: Duration = .seconds(10)) throws {
        let fileManager = FileManager.default
        directory = fileManager.temporaryDirectory
            .appendingPathComponent("audiosession-dbus-\(getpid())-\(UUID().uuidString.prefix(8))")
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let socket = directory.appendingPathComponent("bus").path
        let configuration = directory.appendingPathComponent("session.conf")
        do {
            try Self.configuration(socketPath: socket).write(to: configuration, atomically: true, encoding: .utf8)
            let environment = ProcessInfo.processInfo.environment.filter { $0.key == "PATH" || $0.key == "HOME" }
            daemon = try ManagedProcess(
                "dbus-daemon", ["--config-file=" + configuration.path, "--nofork", "--nopidfile", "--print-address=1"],
                environment: environment, logDirectory: directory)
        } catch {
            try? fileManager.removeItem(at: directory)
            throw error
        }
        // The path form: clients need not know the daemon's guid.
        address = "unix:path=" + socket
        do {
            let daemon = self.daemon
            try waitUntil(timeout: timeout, poll: .milliseconds(2), "dbus-daemon listens on \(socket)") {
                guard daemon.isRunning else {
                    throw SandboxError.notRunning("dbus-daemon exited: \(daemon.errorOutput)")
                }
                return daemon.output.hasPrefix("unix:")
            }
        } catch {
            stop()
            throw error
        }
    }

    deinit {
        stop()
    }

    /// Terminates the daemon by PID (SIGTERM, then SIGKILL), reaps it and removes the directory.
    /// Idempotent.
    public func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        daemon.terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func configuration(socketPath: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <keep_umask/>
          <listen>unix:path=\(socketPath)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
          <!-- The limits of Debian's session.conf, so tests see what a desktop session bus does. -->
          <limit name="max_incoming_bytes">1000000000</limit>
          <limit name="max_outgoing_bytes">1000000000</limit>
          <limit name="max_message_size">1000000000</limit>
          <limit name="max_replies_per_connection">50000</limit>
          <limit name="max_match_rules_per_connection">50000</limit>
          <limit name="max_names_per_connection">50000</limit>
        </busconfig>
        """
    }
}
