import Foundation
import PipeWireSandbox

/// The real `audiosessiond` binary, built next to this test bundle, run against a sandbox.
struct DaemonProcess {
    let process: ManagedProcess
    /// Where the daemon says it is ready (`sd_notify`): its `NOTIFY_SOCKET`.
    let readiness: ReadinessSocket

    /// Where SwiftPM put our executables: beside the test bundle.
    static var binaryDirectory: URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent()
    }

    static func path(of binary: String) -> String {
        binaryDirectory.appendingPathComponent(binary).path
    }

    /// Starts the daemon with its state and user config inside the sandbox: a test never reads
    /// or writes the real user's `~/.config` or `~/.local/state`.
    init(in sandbox: PrivatePipeWire, arguments: [String] = ["--verbose"], environment: [String: String] = [:]) throws {
        let state = sandbox.directory.appendingPathComponent("state").path
        let config = sandbox.directory.appendingPathComponent("config").path
        readiness = try ReadinessSocket(in: sandbox.directory)
        ManagedProcess.allowCoreDumps()
        process = try sandbox.spawn(
            Self.path(of: "audiosessiond"), ["--state-dir", state] + arguments,
            extraEnvironment: ["XDG_CONFIG_HOME": config, "XDG_STATE_HOME": state].merging(readiness.environment) { $1 }
                .merging(environment) { $1 })
    }

    /// Starts the daemon on a pure PulseAudio server, its state in the sandbox (kept across
    /// daemons started in the same sandbox, as a crash and a restart need).
    init(in sandbox: PrivatePulseAudio, arguments: [String] = ["--verbose", "--no-bus"], environment: [String: String] = [:]) throws {
        let state = sandbox.directory.appendingPathComponent("state").path
        readiness = try ReadinessSocket(in: sandbox.directory)
        ManagedProcess.allowCoreDumps()
        process = try sandbox.spawn(
            Self.path(of: "audiosessiond"), ["--state-dir", state, "--backend", "pulseaudio"] + arguments,
            extraEnvironment: readiness.environment.merging(environment) { $1 })
    }

    var log: String { process.errorOutput }

    /// The daemon's threads and, where gdb is installed, their stacks: for the message of a
    /// failure where the daemon stopped reacting.
    var stacks: String { process.stacks() }

    /// Waits until the daemon's log has a line containing `text`, `count` times.
    func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(10)) throws {
        try waitUntil(timeout: timeout, "the daemon logs '\(text)' (\(count)x); log so far:\n\(log)") {
            log.components(separatedBy: text).count - 1 >= count
        }
    }

    /// Waits until the daemon says it is ready (`READY=1`: attached to its server and, unless
    /// `--no-bus`, serving the bus with the media players listed), `count` times: once more after
    /// each time its server went away and came back. A daemon that exits meanwhile fails at once.
    func waitUntilReady(count: Int = 1, timeout: Duration = .seconds(10)) throws {
        try readiness.waitUntilReady(of: process, count: count, timeout: timeout)
    }

    /// SIGTERM, and the exit status (0 when it shut down cleanly).
    func terminate() throws -> Int32 {
        kill(process.pid, SIGTERM)
        return try process.waitForExit(timeout: .seconds(5))
    }
}

extension PrivatePipeWire {
    /// The device name in the `default` metadata under `key`, if any.
    func defaultDevice(_ key: String) throws -> String? {
        guard let value = try dump().metadataValue("default", key: key),
            let data = value.data(using: .utf8),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["name"] as? String
    }
}
