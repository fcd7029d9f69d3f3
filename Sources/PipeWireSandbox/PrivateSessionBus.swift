// PrivateSessionBus: a private dbus-daemon (session-bus semantics, its own socket in a temp dir)
// for tests and the demo, so nothing ever touches the user's session bus. Stopped by PID.

import Glibc

/// A private D-Bus session bus daemon.
///
/// ```swift
/// let bus = try PrivateSessionBus()
/// defer { bus.stop() }
/// // give clients bus.address, e.g. DBUS_SESSION_BUS_ADDRESS=\(bus.address) or busctl --address=
/// ```
public final class PrivateSessionBus: @unchecked Sendable {
    /// The D-Bus address clients connect to (`unix:path=…`).
    public let address: String
    /// The dbus-daemon's process id.
    public let pid: pid_t
    /// The temporary directory holding the socket and configuration (removed by `stop`).
    public let directory: String

    private var stopped = false
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    /// Environment entries that point clients at this bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// Starts `dbus-daemon` and waits (up to `timeout`) until it listens.
    public init(dbusDaemon: String = "dbus-daemon", timeout: Duration = .seconds(10)) throws {
        var template = Array("/tmp/audiosession-dbus-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PrivateSessionBusError("mkdtemp failed: \(Self.errnoText())") }
        let directory = String(cString: made)
        let socketPath = directory + "/bus"
        let configPath = directory + "/session.conf"
        let pid: pid_t
        do {
            try Self.write(Self.configuration(socketPath: socketPath), to: configPath)
            let (child, output) = try Self.spawn(
                dbusDaemon, ["--config-file=" + configPath, "--nofork", "--nopidfile", "--print-address=1"])
            defer { close(output) }
            do {
                let line = try Self.readLine(from: output, timeout: timeout)
                guard line.hasPrefix("unix:") else { throw PrivateSessionBusError("dbus-daemon printed \"\(line)\"") }
            } catch {
                Self.terminate(child)
                throw error
            }
            pid = child
        } catch {
            Self.removeDirectory(directory)
            throw error
        }
        self.pid = pid
        self.directory = directory
        // The path form: clients need not know the daemon's guid.
        self.address = "unix:path=" + socketPath
        pthread_mutex_init(lock, nil)
    }

    deinit {
        stop()
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Terminates the daemon (SIGTERM, then SIGKILL after 5 s), reaps it, removes the directory.
    /// Idempotent.
    public func stop() {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        guard !stopped else { return }
        stopped = true
        Self.terminate(pid)
        Self.removeDirectory(directory)
    }

    // MARK: - Helpers

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
          <limit name="max_incoming_bytes">1000000000</limit>
          <limit name="max_outgoing_bytes">1000000000</limit>
          <limit name="max_message_size">1000000000</limit>
          <limit name="max_replies_per_connection">50000</limit>
          <limit name="max_match_rules_per_connection">50000</limit>
          <limit name="max_names_per_connection">50000</limit>
        </busconfig>
        """
    }

    private static func write(_ text: String, to path: String) throws {
        guard let file = fopen(path, "w") else { throw PrivateSessionBusError("cannot write \(path): \(errnoText())") }
        defer { fclose(file) }
        guard fputs(text, file) >= 0 else { throw PrivateSessionBusError("cannot write \(path): \(errnoText())") }
    }

    /// Spawns `program` with its stdout on a pipe; returns the pid and the pipe's read end.
    private static func spawn(_ program: String, _ arguments: [String]) throws -> (pid_t, Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw PrivateSessionBusError("pipe failed: \(errnoText())") }
        // Not inherited by other children; dup2 onto stdout clears the flag in this child only.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        // Threads of the test runner may block signals; the child must start with none blocked
        // and default dispositions, or SIGTERM would never reach it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let result = posix_spawnp(&pid, program, &actions, &attributes, argv, environ)
        close(fds[1])
        guard result == 0 else {
            close(fds[0])
            throw PrivateSessionBusError("cannot start \(program): \(String(cString: strerror(result)))")
        }
        return (pid, fds[0])
    }

    private static func readLine(from fd: Int32, timeout: Duration) throws -> String {
        let deadline = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        while !bytes.contains(UInt8(ascii: "\n")) {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw PrivateSessionBusError("dbus-daemon did not start within \(timeout)") }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            guard poll(&pfd, 1, milliseconds) >= 0 || errno == EINTR else {
                throw PrivateSessionBusError("poll failed: \(errnoText())")
            }
            guard pfd.revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { throw PrivateSessionBusError("dbus-daemon exited before printing its address") }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }

    /// SIGTERM, wait up to 5 s, then SIGKILL; always reaps the child.
    private static func terminate(_ pid: pid_t) {
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno == ECHILD) { return }
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&pause, nil)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    private static func removeDirectory(_ directory: String) {
        for name in ["bus", "session.conf"] { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// Why a private bus could not be started.
public struct PrivateSessionBusError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
