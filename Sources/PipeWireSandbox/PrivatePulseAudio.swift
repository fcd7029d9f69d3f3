import Foundation

/// A private, pure PulseAudio 16 server (no PipeWire) in a fresh temporary directory, run
/// from the prefix `scripts/fetch-pulseaudio.sh` unpacks (never installed: installing
/// `pulseaudio` enables its user units for everyone). Null sinks stand in for devices; the
/// server loads what Debian's default.pa loads for policy (`module-stream-restore`,
/// `module-role-cork`, `module-intended-roles`). Its clients see only this server, and a
/// nonexistent session bus keeps it off any real one. Everything it starts is stopped by PID
/// on `stop()`, on `deinit`, and at process exit.
public final class PrivatePulseAudio: @unchecked Sendable {
    public let directory: URL
    public let runtimeDirectory: URL
    public let logDirectory: URL
    /// Where the server keeps its databases (stream-restore): kept across ``restart()``.
    public let stateDirectory: URL
    public let sinks: [String]
    private let prefix: URL
    private let lock = NSLock()
    private var server: ManagedProcess?
    private var clients: [ManagedProcess] = []

    /// Null sources standing in for microphones (the first is the default source).
    public let sources: [String]

    /// Starts the server with one null sink per name in `sinks` (the first is the default) and
    /// one null source per name in `sources`, and returns once its socket answers.
    public init(
        sinks: [String] = ["speakers", "headphones"], sources: [String] = ["mic"], startTimeout: Duration = .seconds(10)
    ) throws {
        self.sinks = sinks
        self.sources = sources
        prefix = try Self.prefix()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("audiosession-pa-\(getpid())-\(UUID().uuidString.prefix(8))")
        runtimeDirectory = directory.appendingPathComponent("runtime")
        logDirectory = directory.appendingPathComponent("logs")
        stateDirectory = directory.appendingPathComponent("pulse-state")
        for url in [runtimeDirectory, logDirectory, stateDirectory, directory.appendingPathComponent("home")] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
        try "autospawn = no\n".write(to: clientConfigurationFile, atomically: true, encoding: .utf8)
        try start(timeout: startTimeout)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The PulseAudio of `scripts/fetch-pulseaudio.sh`: `$AUDIOSESSION_PULSEAUDIO_PREFIX` if set,
    /// else `.build-pulseaudio/prefix` in the package.
    public static func prefix() throws -> URL {
        let configured = ProcessInfo.processInfo.environment["AUDIOSESSION_PULSEAUDIO_PREFIX"].map { URL(fileURLWithPath: $0) }
        let prefix = configured ?? PipeWireInstallation.packageRoot.appendingPathComponent(".build-pulseaudio/prefix")
        guard FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("usr/bin/pulseaudio").path) else {
            throw SandboxError.missingInstallation(
                "PulseAudio 16 is not in \(prefix.path): run scripts/fetch-pulseaudio.sh (make test does)")
        }
        return prefix
    }

    public var socketPath: String { runtimeDirectory.appendingPathComponent("native").path }
    private var configurationFile: URL { directory.appendingPathComponent("server.pa") }
    private var clientConfigurationFile: URL { directory.appendingPathComponent("client.conf") }

    private var modulesDirectory: String {
        let lib = prefix.appendingPathComponent("usr/lib")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        let directory = versions.sorted().last { $0.hasPrefix("pulse-") } ?? "pulse-16.1"
        return lib.appendingPathComponent("\(directory)/modules").path
    }

    private var configuration: String {
        var lines = ["load-module module-native-protocol-unix socket=\(socketPath) auth-anonymous=1"]
        for sink in sinks {
            lines.append("load-module module-null-sink sink_name=\(sink) sink_properties=device.description=\(sink)")
        }
        for source in sources {
            lines.append("load-module module-null-source source_name=\(source) description=\(source)")
        }
        // What Debian's default.pa loads for policy.
        lines += [
            "load-module module-stream-restore", "load-module module-intended-roles", "load-module module-role-cork",
            "set-default-sink \(sinks.first ?? "speakers")",
        ] + (sources.first.map { ["set-default-source \($0)"] } ?? [])
        return lines.joined(separator: "\n") + "\n"
    }

    /// The environment for clients of this server (and nothing of the user's audio session).
    public var environment: [String: String] {
        var environment = PrivatePipeWire.baseEnvironment()
        environment["HOME"] = directory.appendingPathComponent("home").path
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory.path
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        environment["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        environment["PULSE_SERVER"] = "unix:\(socketPath)"
        environment["PULSE_CLIENTCONFIG"] = clientConfigurationFile.path
        // No PipeWire here: a client that looks for one finds nothing.
        environment["PIPEWIRE_REMOTE"] = runtimeDirectory.appendingPathComponent("no-pipewire").path
        return environment
    }

    public var serverPID: Int32? { lock.withLock { server?.isRunning == true ? server?.pid : nil } }

    private func start(timeout: Duration) throws {
        let modules = modulesDirectory
        let libraries = [modules, prefix.appendingPathComponent("usr/lib/x86_64-linux-gnu/pulseaudio").path,
                         prefix.appendingPathComponent("usr/lib/x86_64-linux-gnu").path]
        var environment = self.environment
        environment["PULSE_SERVER"] = nil
        environment["LD_LIBRARY_PATH"] = libraries.joined(separator: ":")
        environment["PULSE_RUNTIME_PATH"] = runtimeDirectory.appendingPathComponent("pulse").path
        environment["PULSE_STATE_PATH"] = stateDirectory.path
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent"  // off any real session bus
        let process = try ManagedProcess(
            prefix.appendingPathComponent("usr/bin/pulseaudio").path,
            ["-n", "-F", configurationFile.path, "-p", modules, "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
             "--disallow-exit", "--disallow-module-loading=no", "--system=no", "--realtime=no", "--high-priority=no",
             "--log-target=stderr"],
            environment: environment, logDirectory: logDirectory)
        lock.withLock { server = process }
        let socket = socketPath
        try waitUntil(timeout: timeout, "the private pulseaudio answers on \(socket)") {
            guard process.isRunning else { throw SandboxError.notRunning("pulseaudio exited at startup: \(process.errorOutput)") }
            return UnixSocket.accepts(path: socket)
        }
    }

    /// Stops the server (SIGTERM; `kill: true` for SIGKILL) and starts it again with the same
    /// configuration and databases.
    public func restart(kill: Bool = false, timeout: Duration = .seconds(10)) throws {
        if let server = lock.withLock({ self.server }) {
            if kill {
                Glibc.kill(server.pid, SIGKILL)
                _ = try? server.waitForExit(timeout: .seconds(5))
            } else {
                server.terminate()
            }
        }
        try? FileManager.default.removeItem(atPath: socketPath)
        try start(timeout: timeout)
    }

    /// Starts a client of this server, stopped with it.
    public func spawn(_ executable: String, _ arguments: [String] = [], extraEnvironment: [String: String] = [:]) throws
        -> ManagedProcess
    {
        let process = try ManagedProcess(
            executable, arguments, environment: environment.merging(extraEnvironment) { $1 }, logDirectory: logDirectory)
        lock.withLock { clients.append(process) }
        return process
    }

    /// A quiet sine tone of `seconds` (written once per sandbox).
    public func testTone(seconds: Double = 60) throws -> URL {
        let url = directory.appendingPathComponent("tone-\(Int(seconds))s.wav")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        return try TestTone.write(to: url, seconds: seconds)
    }

    /// `paplay FILE` with `PULSE_PROP` properties (`media.role=music`, ...), asking for 100 ms
    /// of latency as desktop players do (10–200 ms). paplay's own default, 2 s, makes a null
    /// sink render in 2 s blocks, and nothing a new stream plays is rendered, heard or metered
    /// before the next block (a device's sink rewinds to mix it in at once; a null sink does not).
    public func play(_ file: URL, properties: [String: String] = [:]) throws -> ManagedProcess {
        // pa_proplist_from_string: a value with spaces is quoted.
        let props = properties.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.contains(" ") ? "'\($0.value)'" : $0.value)" }.joined(separator: " ")
        return try spawn("paplay", ["--latency-msec=100", file.path], extraEnvironment: props.isEmpty ? [:] : ["PULSE_PROP": props])
    }

    /// Runs `pactl` with these arguments and returns its output.
    public func pactl(_ arguments: [String], timeout: Duration = .seconds(10)) throws -> String {
        try ManagedProcess.run("pactl", arguments, environment: environment, logDirectory: logDirectory, timeout: timeout)
    }

    /// The loaded modules as `name argument` lines, sorted (indexes left out): what a test
    /// compares before and after.
    public func moduleList() throws -> [String] {
        try pactl(["list", "short", "modules"]).split(separator: "\n").map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).dropFirst().prefix(2)
                .joined(separator: " ").trimmingCharacters(in: .whitespaces)
        }.sorted()
    }

    public func stop() {
        let (server, clients) = lock.withLock { () -> (ManagedProcess?, [ManagedProcess]) in
            defer {
                self.server = nil
                self.clients = []
            }
            return (self.server, self.clients)
        }
        for client in clients { client.terminate() }
        server?.terminate()
    }
}
