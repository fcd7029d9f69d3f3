import Foundation

/// A private, headless PipeWire daemon in a fresh temporary runtime dir, with virtual devices
/// from its own conf dir. Never touches a user's PipeWire: clients get an environment with only
/// the sandbox's runtime dir, and inherited PIPEWIRE_REMOTE / PULSE_SERVER /
/// DBUS_SESSION_BUS_ADDRESS are dropped. Everything it starts is stopped by PID on `stop()`,
/// on `deinit`, and at process exit.
public final class PrivatePipeWire: @unchecked Sendable {
    public let directory: URL
    public let runtimeDirectory: URL
    public let configDirectory: URL
    public let logDirectory: URL
    public let devices: [VirtualDevice]
    /// The sandbox gives its devices their DSP ports (see ``init(devices:installation:startTimeout:configuresDevicePorts:)``).
    public let configuresDevicePorts: Bool
    /// The PipeWire the server (and pipewire-pulse) run from; nil: the system's.
    public let installation: PipeWireInstallation?
    private let lock = NSLock()
    private var daemon: ManagedProcess?
    private var pulse: ManagedProcess?
    private var clients: [ManagedProcess] = []
    private var sessionBus: PrivateSessionBus?

    /// Creates the directories and conf and starts `pipewire` (from `installation` when given,
    /// else the stack under test: ``PipeWireInstallation/underTest()``); returns once its
    /// socket answers.
    /// `configuresDevicePorts`: the sandbox gives its devices their DSP ports itself, as a
    /// session manager would (it runs none, and PipeWire 1.x leaves them without). False for a
    /// test of whoever should give them instead: the daemon alone, or WirePlumber.
    public init(
        devices: [VirtualDevice] = VirtualDevice.standard, installation: PipeWireInstallation? = nil,
        startTimeout: Duration = .seconds(10), configuresDevicePorts: Bool = true
    ) throws {
        self.devices = devices
        self.configuresDevicePorts = configuresDevicePorts
        let installation = try installation ?? PipeWireInstallation.underTest()
        self.installation = installation
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("audiosession-pw-\(getpid())-\(UUID().uuidString.prefix(8))")
        runtimeDirectory = directory.appendingPathComponent("runtime")
        configDirectory = directory.appendingPathComponent("config")
        logDirectory = directory.appendingPathComponent("logs")
        let fileManager = FileManager.default
        for url in [runtimeDirectory, configDirectory, logDirectory] {
            try fileManager.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let confDirectory = configDirectory.appendingPathComponent("pipewire/pipewire.conf.d")
        try fileManager.createDirectory(at: confDirectory, withIntermediateDirectories: true)
        try Self.configuration(for: devices).write(
            to: confDirectory.appendingPathComponent("50-audiosession-sandbox.conf"), atomically: true, encoding: .utf8)
        if let installation {
            // PIPEWIRE_CONFIG_DIR replaces every other place, drop-ins included: the
            // installation's own files, with the sandbox's drop-in beside them.
            let serverConfiguration = self.serverConfigurationDirectory
            try fileManager.copyItem(at: installation.configurationDirectory, to: serverConfiguration)
            let dropIns = serverConfiguration.appendingPathComponent("pipewire.conf.d")
            try fileManager.createDirectory(at: dropIns, withIntermediateDirectories: true)
            try fileManager.copyItem(
                at: confDirectory.appendingPathComponent("50-audiosession-sandbox.conf"),
                to: dropIns.appendingPathComponent("50-audiosession-sandbox.conf"))
        }
        if let plugins = installation?.alsaPluginDirectory {
            try """
                pcm_type.pipewire { lib "\(plugins.appendingPathComponent("libasound_module_pcm_pipewire.so").path)" }
                ctl_type.pipewire { lib "\(plugins.appendingPathComponent("libasound_module_ctl_pipewire.so").path)" }

                """.write(to: alsaConfiguration, atomically: true, encoding: .utf8)
        }
        try startDaemon(timeout: startTimeout)
    }

    /// The configuration programs of ``installation`` read (not the system client's
    /// `XDG_CONFIG_HOME`, which a 0.3.65 library would read too).
    public var serverConfigurationDirectory: URL { directory.appendingPathComponent("server-config") }

    /// The environment for a program of ``installation``: the sandbox's, plus its libraries.
    /// For a root, its programs come first on `PATH` too: what ours start by name
    /// (`audiosessionctl run -- pw-cat`) is that release's, as on a desktop that runs it, and
    /// never the host's, which the root's SPA_PLUGIN_DIR would break.
    private func installationEnvironment(_ base: [String: String]) -> [String: String] {
        guard let installation else { return base }
        var environment = base.merging(installation.environment(configuration: serverConfigurationDirectory)) { $1 }
        if installation.runsBuiltPrograms {
            environment["PATH"] = [installation.programDirectory.path, base["PATH"]].compactMap { $0 }.joined(separator: ":")
        }
        return environment
    }

    /// Where ALSA's `pipewire` PCM and control types are named to be the installation's plugins.
    private var alsaConfiguration: URL { directory.appendingPathComponent("asound-pipewire.conf") }

    /// The environment for a program that is neither the installation's nor ours (a real app):
    /// on a prefix, its whole client side is that release's, as on a desktop that runs it:
    /// libpipewire, its SPA plugins, modules and client configuration, and ALSA's PipeWire
    /// plugin, named after the system's ALSA configuration (which keeps its `pipewire` and
    /// `default` PCMs). A root's libraries need the root's C library: there an app keeps the
    /// host's client side (docs/real-apps.md).
    private func appEnvironment(_ base: [String: String]) -> [String: String] {
        guard installation?.alsaPluginDirectory != nil else { return base }
        var environment = installationEnvironment(base)
        environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(alsaConfiguration.path)"
        return environment
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The daemon's socket: point `PIPEWIRE_REMOTE` (or `Configuration.remote`) here.
    public var socketPath: String { runtimeDirectory.appendingPathComponent("pipewire-0").path }
    public var pulseSocketPath: String { runtimeDirectory.appendingPathComponent("pulse/native").path }

    /// The environment for clients of this sandbox (and nothing of the user's audio session).
    public var environment: [String: String] {
        var environment = Self.baseEnvironment()
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory.path
        environment["XDG_CONFIG_HOME"] = configDirectory.path
        environment["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        environment["PIPEWIRE_RUNTIME_DIR"] = runtimeDirectory.path
        environment["PIPEWIRE_REMOTE"] = socketPath
        if lock.withLock({ pulse != nil }) { environment["PULSE_SERVER"] = "unix:\(pulseSocketPath)" }
        return environment
    }

    /// The PID of the running daemon, if any.
    public var daemonPID: Int32? { lock.withLock { daemon?.isRunning == true ? daemon?.pid : nil } }
    public var pulsePID: Int32? { lock.withLock { pulse?.isRunning == true ? pulse?.pid : nil } }

    /// Every PID this sandbox started that is still registered (for cleanup checks).
    public var startedPIDs: [Int32] {
        lock.withLock { ([daemon, pulse] + clients.map(Optional.some)).compactMap { $0?.pid } }
    }

    // MARK: - Daemons

    private func startDaemon(timeout: Duration) throws {
        var environment = self.environment
        environment["PIPEWIRE_REMOTE"] = nil  // the server names its own socket
        environment["PULSE_SERVER"] = nil
        if let logs = ProcessInfo.processInfo.environment["AUDIOSESSION_TEST_SERVER_LOG"] {
            // Each client's busy marks and the protocol's traffic: what shows a client the
            // server no longer reads (docs/upstream-bugs.md).
            environment["PIPEWIRE_DEBUG"] = "pw.client:4,mod.protocol-native:4"
            environment["PIPEWIRE_LOG"] = "\(logs)/\(directory.lastPathComponent)-\(Int(Date().timeIntervalSince1970 * 1000)).log"
        }
        let process = try ManagedProcess(
            installation?.executable("pipewire") ?? "pipewire", [], environment: installationEnvironment(environment),
            logDirectory: logDirectory)
        lock.withLock { daemon = process }
        let socket = socketPath
        try waitUntil(timeout: timeout, "the private pipewire answers on \(socket)") {
            guard process.isRunning else {
                throw SandboxError.notRunning("pipewire exited at startup: \(process.errorOutput)")
            }
            return UnixSocket.accepts(path: socket)
        }
        if configuresDevicePorts { try configurePorts(of: devices, timeout: timeout) }
    }

    /// PipeWire 1.4.2 leaves the conf's null sinks in convert mode despite their
    /// `adapter.auto-port-config`: give them the DSP and monitor ports 0.3.65 gives them
    /// (on the system's 0.3.65 there is nothing to do).
    /// Every virtual device is a null-audio-sink, so its adapter's follower takes input.
    private func configurePorts(of devices: [VirtualDevice], timeout: Duration) throws {
        guard installation != nil else { return }
        var ids: [String: UInt32] = [:]
        try waitUntil(timeout: timeout, "the virtual devices \(devices.map(\.name)) appear") {
            let dump = try dump()
            ids = Dictionary(uniqueKeysWithValues: devices.compactMap { device in dump.node(named: device.name).map { (device.name, $0.id) } })
            return ids.count == devices.count
        }
        for device in devices {
            let format = "{ mediaType: audio, mediaSubtype: raw, format: F32P, rate: 48000, channels: \(device.positions.count), position: [ \(device.positions.joined(separator: ", ")) ] }"
            try run("pw-cli", ["set-param", String(ids[device.name]!), "PortConfig", "{ direction: Input, mode: dsp, monitor: true, format: \(format) }"])
        }
        try waitUntil(timeout: timeout, "the virtual devices have their DSP ports") {
            let dump = try dump()
            return devices.allSatisfy { device in
                dump.ports(ofNode: ids[device.name]!).count == 2 * device.positions.count
            }
        }
        guard installation?.dropsFirstVolumeWrite == true else { return }
        for device in devices {
            let unity = Array(repeating: "1.0", count: device.positions.count).joined(separator: ", ")
            try run("pw-cli", ["set-param", String(ids[device.name]!), "Props", "{ channelVolumes: [ \(unity) ] }"])
        }
    }

    /// Starts `pipewire-pulse` for pulse clients (`paplay`); `PULSE_SERVER` is then in `environment`.
    public func startPulse(timeout: Duration = .seconds(10)) throws {
        if lock.withLock({ pulse?.isRunning == true }) { return }
        var environment = self.environment
        environment["PULSE_SERVER"] = nil
        let process = try ManagedProcess(
            installation?.executable("pipewire-pulse") ?? "pipewire-pulse", [],
            environment: installationEnvironment(environment), logDirectory: logDirectory)
        lock.withLock { pulse = process }
        let socket = pulseSocketPath
        try waitUntil(timeout: timeout, "pipewire-pulse answers on \(socket)") {
            guard process.isRunning else {
                throw SandboxError.notRunning("pipewire-pulse exited at startup: \(process.errorOutput)")
            }
            return UnixSocket.accepts(path: socket)
        }
    }

    /// The WirePlumber ``startWirePlumber(configuration:timeout:)`` runs: the installation's
    /// (0.5.8 in the 1.4 backport, 0.5.12 in the trixie root), else the system's (0.4.13 on
    /// Debian 12).
    public var wirePlumberSeries: WirePlumberSeries {
        installation?.wirePlumberSeries ?? .v0_4
    }

    /// Starts WirePlumber (the usual session manager) with a private session bus of its own
    /// (``PrivateSessionBus``): it provides the `default` metadata, configures ports and links
    /// streams. `configuration` adds files to its configuration directory, by path below it
    /// (0.4: `main.lua.d/…`, `policy.lua.d/…`; 0.5: `wireplumber.conf.d/…`). Both are stopped
    /// by PID with the sandbox; stopping the returned process stops WirePlumber alone.
    ///
    /// It is ready when it provides the `default` metadata; with `managingDevicesOnly` (a
    /// configuration without its linking and default-node policy, which provides none), when
    /// it says what it does (`session.services` on its client, WirePlumber 0.5's last step).
    @discardableResult
    public func startWirePlumber(
        configuration: [String: URL] = [:], managingDevicesOnly: Bool = false, timeout: Duration = .seconds(15)
    ) throws -> ManagedProcess {
        let bus = try lock.withLock { () throws -> PrivateSessionBus in
            if let sessionBus { return sessionBus }
            let bus = try PrivateSessionBus()
            sessionBus = bus
            return bus
        }
        // A configuration directory of its own for each start: files of an earlier start are gone.
        let configurationDirectory = directory.appendingPathComponent("wireplumber-\(UUID().uuidString.prefix(8))")
        for (path, source) in configuration {
            let destination = configurationDirectory.appendingPathComponent("wireplumber/\(path)")
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: source, to: destination)
        }
        var environment = bus.environment
        let process: ManagedProcess
        if let installation, installation.hasWirePlumber {
            environment.merge(installation.wirePlumberEnvironment(
                configuration: configurationDirectory.appendingPathComponent("wireplumber"))) { $1 }
            process = try spawnInstalled("wireplumber", [], extraEnvironment: environment)
        } else {
            environment["XDG_CONFIG_HOME"] = configurationDirectory.path
            process = try spawn("wireplumber", [], extraEnvironment: environment)
        }
        let readiness = managingDevicesOnly ? "WirePlumber says what it does (session.services)" : "WirePlumber provides the default metadata"
        try waitUntil(timeout: timeout, readiness) {
            guard process.isRunning else {
                throw SandboxError.notRunning("wireplumber exited at startup: \(process.errorOutput)")
            }
            let objects = try dump().objects
            if managingDevicesOnly {
                return objects.contains { $0.type == "PipeWire:Interface:Client" && $0.property("session.services") != nil }
            }
            return objects.contains { $0.type == "PipeWire:Interface:Metadata" && $0.property("metadata.name") == "default" }
        }
        return process
    }

    /// Stops the daemon (SIGTERM) and starts a new one on the same runtime dir: "media services
    /// were reset". pipewire-pulse is restarted too when it was running.
    public func restart(timeout: Duration = .seconds(10)) throws {
        let hadPulse = lock.withLock { pulse != nil }
        stopPulse()
        stopDaemon()
        try startDaemon(timeout: timeout)
        if hadPulse { try startPulse(timeout: timeout) }
    }

    /// Stops the daemon only (clients and pulse are left to notice); `startAgain()` brings it back.
    public func stopDaemon() {
        let process = lock.withLock { () -> ManagedProcess? in
            defer { daemon = nil }
            return daemon
        }
        process?.terminate()
        try? FileManager.default.removeItem(atPath: socketPath)
        try? FileManager.default.removeItem(atPath: socketPath + ".lock")
    }

    public func startAgain(timeout: Duration = .seconds(10)) throws {
        guard lock.withLock({ daemon == nil }) else { return }
        try startDaemon(timeout: timeout)
    }

    private func stopPulse() {
        let process = lock.withLock { () -> ManagedProcess? in
            defer { pulse = nil }
            return pulse
        }
        process?.terminate()
    }

    /// Stops every client, pipewire-pulse and the daemon, by PID. Idempotent.
    public func stop() {
        let started = lock.withLock { () -> [ManagedProcess] in
            defer { clients.removeAll() }
            return clients
        }
        for client in started.reversed() { client.terminate() }
        lock.withLock { () -> PrivateSessionBus? in
            defer { sessionBus = nil }
            return sessionBus
        }?.stop()
        stopPulse()
        stopDaemon()
    }

    // MARK: - Clients

    /// Starts a client with the sandbox environment (plus `extraEnvironment`); stopped with the
    /// sandbox. A PipeWire program the ``installation`` has (`pw-cat`, `pw-record`) runs from
    /// it: the whole stack is that release's, as on a desktop that runs it. Any other program
    /// but ours loads the prefix's client side too (``appEnvironment(_:)``).
    @discardableResult
    public func spawn(_ executable: String, _ arguments: [String] = [], extraEnvironment: [String: String] = [:])
        throws -> ManagedProcess
    {
        if let installation, !executable.contains("/"), executable != "wireplumber",
            FileManager.default.isExecutableFile(atPath: installation.executable(executable))
        {
            return try spawnInstalled(executable, arguments, extraEnvironment: extraEnvironment)
        }
        if let installation, installation.runsBuiltPrograms, Self.isBuiltHere(executable) {
            // Ours (audiosessiond, audiosessionctl) on the installation's libraries and
            // configuration, as on a desktop that runs that stack.
            let environment = installationEnvironment(self.environment).merging(extraEnvironment) { $1 }
            let process = try ManagedProcess(
                installation.runnable(executable), arguments, environment: environment, logDirectory: logDirectory)
            lock.withLock { clients.append(process) }
            return process
        }
        // Ours keep the host's library on a prefix (built against it); any other program is a
        // client of the release under test.
        let base = Self.isBuiltHere(executable) ? self.environment : appEnvironment(self.environment)
        let environment = base.merging(extraEnvironment) { $1 }
        let process = try ManagedProcess(executable, arguments, environment: environment, logDirectory: logDirectory)
        lock.withLock { clients.append(process) }
        return process
    }

    /// Whether `executable` is a program of this package: it lies beside the running test
    /// binary, where SwiftPM puts them all.
    static func isBuiltHere(_ executable: String) -> Bool {
        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return URL(fileURLWithPath: executable).deletingLastPathComponent().standardizedFileURL.path
            == products.standardizedFileURL.path
    }

    /// Starts a program of ``installation`` (its `pw-cat`: a stream whose converter is that
    /// release's) with the sandbox environment; stopped with the sandbox.
    @discardableResult
    public func spawnInstalled(_ name: String, _ arguments: [String] = [], extraEnvironment: [String: String] = [:])
        throws -> ManagedProcess
    {
        guard let installation else {
            throw SandboxError.missingInstallation("this sandbox runs the system's PipeWire: no installed \(name)")
        }
        let environment = installationEnvironment(self.environment).merging(extraEnvironment) { $1 }
        let process = try ManagedProcess(
            installation.executable(name), arguments, environment: environment, logDirectory: logDirectory)
        lock.withLock { clients.append(process) }
        return process
    }

    /// `pw-cat -p --media-role <role> <file>`: a real playback stream.
    @discardableResult
    public func play(role: String?, file: URL, extraArguments: [String] = []) throws -> ManagedProcess {
        var arguments = ["-p"]
        if let role { arguments += ["--media-role", role] }
        return try spawn("pw-cat", arguments + extraArguments + [file.path])
    }

    /// `paplay` through pipewire-pulse (started on demand), with `media.role` via PULSE_PROP.
    @discardableResult
    public func paplay(role: String?, file: URL) throws -> ManagedProcess {
        try startPulse()
        var extra: [String: String] = [:]
        if let role { extra["PULSE_PROP"] = "media.role=\(role)" }
        return try spawn("paplay", [file.path], extraEnvironment: extra)
    }

    /// Writes a test tone into the sandbox dir.
    /// Written once per sandbox: writing it again would truncate the file under a player
    /// still reading it (pw-cat then ends early, and its stream with it).
    public func testTone(seconds: Double = 60, channels: Int = 2) throws -> URL {
        let url = directory.appendingPathComponent("tone-\(channels)ch-\(Int(seconds))s.wav")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        let partial = directory.appendingPathComponent(".\(url.lastPathComponent).partial")
        _ = try TestTone.write(to: partial, seconds: seconds, channels: channels)
        try FileManager.default.moveItem(at: partial, to: url)
        return url
    }

    /// Runs a PipeWire tool (`pw-cli`, `pw-dump`, `pw-link`, `pactl`...) to completion; its stdout.
    /// With an ``installation``, its own copy of a tool runs (0.3.65's pw-dump prints invalid
    /// JSON for 1.4's objects).
    @discardableResult
    public func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(10)) throws -> String {
        if let installation, !executable.contains("/"),
            FileManager.default.isExecutableFile(atPath: installation.executable(executable))
        {
            return try ManagedProcess.run(
                installation.executable(executable), arguments, environment: installationEnvironment(environment),
                logDirectory: logDirectory, timeout: timeout)
        }
        return try ManagedProcess.run(
            executable, arguments, environment: environment, logDirectory: logDirectory, timeout: timeout)
    }

    // MARK: - Devices at run time

    /// Creates a null sink at run time ("plugging in" a device); it lingers until destroyed.
    public func createNullSink(named name: String, description: String? = nil, positions: [String] = ["FL", "FR"]) throws {
        let device = VirtualDevice(name: name, description: description, positions: positions)
        try run("pw-cli", ["create-node", "adapter", device.adapterArguments])
        try waitUntil(timeout: .seconds(5), "node \(name) appears") { try dump().node(named: name) != nil }
        if configuresDevicePorts { try configurePorts(of: [device], timeout: .seconds(5)) }
    }

    /// Gives a device node created at run time (`pw-cli create-node adapter`) its DSP ports,
    /// as 0.3.65 does by itself from `adapter.auto-port-config` and 1.4.2 does not.
    public func configureDevicePorts(named name: String, positions: [String]) throws {
        try configurePorts(of: [VirtualDevice(name: name, positions: positions)], timeout: .seconds(5))
    }

    /// Destroys a node by `node.name` ("unplugging" it).
    public func destroyNode(named name: String) throws {
        guard let node = try dump().node(named: name) else { throw SandboxError.commandFailed("no node named \(name)") }
        try run("pw-cli", ["destroy", String(node.id)])
        try waitUntil(timeout: .seconds(5), "node \(name) disappears") { try dump().node(named: name) == nil }
    }

    // MARK: - Oracles

    /// `pw-dump`, parsed: an independent view of the graph.
    ///
    /// pw-dump 1.4.2 can wait forever for an object destroyed while it binds it (a metadata
    /// withdrawn as WirePlumber starts); such a dump is taken again, up to three times.
    public func dump() throws -> PipeWireDump {
        var attempt = 1
        while true {
            do {
                return try PipeWireDump(json: run("pw-dump", [], timeout: .seconds(4)))
            } catch SandboxError.timeout where attempt < 3 {
                attempt += 1
            } catch SandboxError.timeout(let message) {
                throw SandboxError.timeout("\(message)\n\(unansweredDumpFacts())")
            }
        }
    }

    /// What the failure of a `pw-dump` that never finished needs: the server's threads. A server
    /// idle in `epoll_wait` while every dump hangs is holding the dump for another client: each
    /// bind of a metadata waits until its exporter answers a ping (`module-metadata`), and a
    /// client the server no longer reads never does.
    private func unansweredDumpFacts() -> String {
        let server = lock.withLock { daemon }
        return "the server's threads: \(server?.stacks() ?? "no server")"
    }

    /// `pw-link -l -I`, parsed: every link as (output port, input port) ids and names.
    public func portLinks() throws -> [PortLinkListing.Entry] { try PortLinkListing(output: run("pw-link", ["-l", "-I"])).entries }

    // MARK: - Configuration

    static func configuration(for devices: [VirtualDevice]) -> String {
        let objects = devices.map { "    { factory = adapter args = \($0.adapterArguments) }" }
        return """
            # Written by PipeWireSandbox: virtual devices for a private, headless PipeWire.
            # The clock may switch between common rates, as on a desktop configured for music
            # production: a preferred 96 kHz can be forced, 192 kHz cannot.
            context.properties = {
                default.clock.allowed-rates = [ 44100 48000 88200 96000 ]
            }
            # A test source plays a tone: the sandbox's Bluetooth headset makes its microphones of it.
            context.spa-libs = {
                audiotestsrc = audiotestsrc/libspa-audiotestsrc
            }
            context.objects = [
            \(objects.joined(separator: "\n"))
            ]
            """
    }

    /// What clients inherit from the test process: only what they need to run, nothing that
    /// points at the user's audio or session bus.
    static func baseEnvironment() -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        var environment: [String: String] = [:]
        for key in ["PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR"] { environment[key] = inherited[key] }
        environment["PATH"] = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        environment["PIPEWIRE_LOG_SYSTEMD"] = "false"
        environment["DISABLE_RTKIT"] = "1"
        return environment
    }
}

/// Probes whether a Unix socket accepts connections.
enum UnixSocket {
    static func accepts(path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
