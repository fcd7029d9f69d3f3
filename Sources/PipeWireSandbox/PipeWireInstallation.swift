import Foundation

/// A PipeWire beside the system's, so a sandbox can run a newer stack than Debian 12's 0.3.65 and
/// WirePlumber 0.4.13:
/// - an unpacked prefix (Debian packages extracted with `dpkg-deb -x`, never installed):
///   PipeWire 1.4.2 and WirePlumber 0.5.8 from bookworm-backports
///   (`scripts/fetch-pipewire-backport.sh`). Its programs run with `LD_LIBRARY_PATH`,
///   `SPA_PLUGIN_DIR` and `PIPEWIRE_MODULE_DIR` pointing into the prefix; our own programs keep
///   the system's library (the protocol is compatible).
/// - a Debian root (debootstrap): PipeWire 1.6 and WirePlumber 0.5.12 from trixie-backports
///   (`scripts/fetch-pipewire-1.6.sh`). Trixie's programs need trixie's glibc, newer than the
///   host's, so they run on the root's own dynamic loader (their ELF interpreter set to it, a
///   wrapper in ``programDirectory`` giving them the root's library path), not in a chroot: a
///   chroot needs privileges and bind mounts of every path a test hands a program (its
///   temporary directories, the checkout, the Swift runtime), and the loader needs neither.
///   Our own programs run there too (``runnable(_:)``), as a daemon built here would on a
///   desktop that runs that stack.
public struct PipeWireInstallation: Sendable, Equatable {
    /// The prefix (or root): `usr/bin`, `usr/lib/<triplet>`, `usr/share/pipewire` below it.
    public let prefix: URL
    public let libraryDirectory: URL
    /// Where its programs are started from: the prefix's `usr/bin`, or the wrappers that start
    /// a root's programs on the root's libraries.
    public let programDirectory: URL
    /// A root's dynamic loader; nil for a prefix, whose programs the host's loader runs.
    public let loader: URL?

    /// Checks that the prefix holds a server, its library, SPA plugins and modules.
    public init(prefix: URL) throws {
        try self.init(prefix: prefix, programDirectory: prefix.appendingPathComponent("usr/bin"), loader: nil)
    }

    /// A Debian root run through its own loader: `programDirectory` holds a wrapper per program.
    public init(root: URL, programDirectory: URL) throws {
        let loader = root.appendingPathComponent("usr/lib64/ld-linux-x86-64.so.2")
        guard FileManager.default.fileExists(atPath: loader.path) else {
            throw SandboxError.missingInstallation("no dynamic loader \(loader.path) in the root")
        }
        try self.init(prefix: root, programDirectory: programDirectory, loader: loader)
    }

    private init(prefix: URL, programDirectory: URL, loader: URL?) throws {
        self.prefix = prefix
        self.programDirectory = programDirectory
        self.loader = loader
        let lib = prefix.appendingPathComponent("usr/lib")
        let triplet = (try? FileManager.default.contentsOfDirectory(atPath: lib.path))?
            .sorted().first { FileManager.default.fileExists(atPath: lib.appendingPathComponent("\($0)/spa-0.2").path) }
        guard let triplet else {
            throw SandboxError.missingInstallation("no usr/lib/<triplet>/spa-0.2 under \(prefix.path)")
        }
        libraryDirectory = lib.appendingPathComponent(triplet)
        for needed in [executable("pipewire"), libraryDirectory.appendingPathComponent("pipewire-0.3").path, configurationDirectory.path]
        where !FileManager.default.fileExists(atPath: needed) {
            throw SandboxError.missingInstallation("\(needed) is missing from the PipeWire installation \(prefix.path)")
        }
    }

    /// The PipeWire 1.4.2 of `scripts/fetch-pipewire-backport.sh`: `$AUDIOSESSION_PIPEWIRE_PREFIX`
    /// if set, else `.build-pipewire-1.4/prefix` in the package at `packageRoot`. A missing
    /// prefix is an error that says how to fetch it.
    public static func backport(packageRoot: URL) throws -> PipeWireInstallation {
        let configured = ProcessInfo.processInfo.environment["AUDIOSESSION_PIPEWIRE_PREFIX"].map { URL(fileURLWithPath: $0) }
        let prefix = configured ?? packageRoot.appendingPathComponent(".build-pipewire-1.4/prefix")
        do {
            return try PipeWireInstallation(prefix: prefix)
        } catch SandboxError.missingInstallation(let reason) {
            throw SandboxError.missingInstallation(
                "PipeWire 1.4.2 is not in \(prefix.path) (\(reason)): run scripts/fetch-pipewire-backport.sh (make test does)")
        }
    }

    /// The stack the integration suites run on: the system's (nil) unless
    /// `AUDIOSESSION_TEST_STACK=1.4` asks for the backport (`make test-stack-1.4`). An unknown
    /// value is an error, not a silent fallback to the system's stack.
    public static func underTest() throws -> PipeWireInstallation? {
        switch ProcessInfo.processInfo.environment["AUDIOSESSION_TEST_STACK"] ?? "" {
        case "", "debian", "system":
            return nil
        case "1.4", "backport":
            return try backport(packageRoot: packageRoot)
        case "1.6", "trixie":
            return try trixie(packageRoot: packageRoot)
        case let other:
            throw SandboxError.missingInstallation(
                "AUDIOSESSION_TEST_STACK=\(other): say 1.6 (trixie-backports), 1.4 (bookworm-backports) or debian")
        }
    }

    /// The PipeWire 1.6 of `scripts/fetch-pipewire-1.6.sh`: the trixie root in
    /// `.build-pipewire-1.6/root` of the package at `packageRoot`, its wrappers in
    /// `.build-pipewire-1.6/bin`. A missing root is an error that says how to make it.
    public static func trixie(packageRoot: URL) throws -> PipeWireInstallation {
        let work = packageRoot.appendingPathComponent(".build-pipewire-1.6")
        do {
            return try PipeWireInstallation(
                root: work.appendingPathComponent("root"), programDirectory: work.appendingPathComponent("bin"))
        } catch SandboxError.missingInstallation(let reason) {
            throw SandboxError.missingInstallation(
                "PipeWire 1.6 is not in \(work.path) (\(reason)): run scripts/fetch-pipewire-1.6.sh as root or with sudo (make deps does)")
        }
    }

    /// The WirePlumber series of this installation, read from its library's name
    /// (`libwireplumber-0.5.so.0`); nil when it has none.
    public var wirePlumberSeries: WirePlumberSeries? {
        guard hasWirePlumber else { return nil }
        let libraries = (try? FileManager.default.contentsOfDirectory(atPath: libraryDirectory.path)) ?? []
        if libraries.contains(where: { $0.hasPrefix("libwireplumber-0.4.so") }) { return .v0_4 }
        return .v0_5
    }

    /// The package this library was built in (the backport prefix lives there).
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// A program of this installation (`pipewire`, `pw-cat`, `pipewire-pulse`).
    public func executable(_ name: String) -> String { programDirectory.appendingPathComponent(name).path }

    /// Whether the prefix holds WirePlumber (0.5.8 in the backport).
    public var hasWirePlumber: Bool { FileManager.default.isExecutableFile(atPath: executable("wireplumber")) }

    /// WirePlumber's own configuration and scripts (`wireplumber.conf`, `scripts/`).
    public var wirePlumberDataDirectory: URL { prefix.appendingPathComponent("usr/share/wireplumber") }

    /// An example configuration file of `wireplumber-doc` (`media-role-nodes.conf`: the role
    /// loopbacks).
    public func wirePlumberExample(_ name: String) -> URL {
        prefix.appendingPathComponent("usr/share/doc/wireplumber/examples/wireplumber.conf.d/\(name)")
    }

    /// What WirePlumber of this installation needs: its modules, data, and a configuration
    /// path that reads `configuration` (drop-ins in its `wireplumber.conf.d/`) before its own.
    public func wirePlumberEnvironment(configuration: URL) -> [String: String] {
        [
            "WIREPLUMBER_MODULE_DIR": libraryDirectory.appendingPathComponent("wireplumber-0.5").path,
            "WIREPLUMBER_DATA_DIR": wirePlumberDataDirectory.path,
            "WIREPLUMBER_CONFIG_DIR": "\(configuration.path):\(wirePlumberDataDirectory.path)",
        ]
    }

    /// The installation's own configuration (`pipewire.conf`, `client.conf`, ...).
    public var configurationDirectory: URL { prefix.appendingPathComponent("usr/share/pipewire") }

    /// What its programs need to load its libraries, plugins and modules, and read the
    /// configuration in `configuration` (a copy of ``configurationDirectory`` with drop-ins).
    /// A root's programs get their libraries from the loader's `--library-path`, never from
    /// `LD_LIBRARY_PATH`: the root's C library would break every host program it reached (the
    /// wrapper's shell first).
    public func environment(configuration: URL) -> [String: String] {
        var environment = [
            "SPA_PLUGIN_DIR": libraryDirectory.appendingPathComponent("spa-0.2").path,
            "PIPEWIRE_MODULE_DIR": libraryDirectory.appendingPathComponent("pipewire-0.3").path,
            "PIPEWIRE_CONFIG_DIR": configuration.path,
        ]
        if loader == nil { environment["LD_LIBRARY_PATH"] = libraryDirectory.path }
        return environment
    }

    /// Whether the first `Props` write to a running null device (a `support.null-audio-sink`
    /// adapter in DSP mode: the sandbox's speakers, headphones and card microphone) is lost, and
    /// the next one applied: PipeWire 1.6.9 does so (a running null source keeps channel volumes
    /// 1.0 after a `pw-cli set-param ... Props { channelVolumes: [ 0.5, 0.5 ] }`, and takes a
    /// second write). The sandbox writes unity volumes to its devices once, so that the test's
    /// first volume (the user's, or the daemon's) is the second write. The trixie root is that
    /// release.
    public var dropsFirstVolumeWrite: Bool { loader != nil }

    /// ALSA's PipeWire plugins of this release (`pipewire-alsa`'s `alsa-lib/`), where the host's
    /// programs can load them: a prefix's, built for this C library. Nil for a root (its
    /// plugins need the root's C library) and for a prefix fetched without them.
    public var alsaPluginDirectory: URL? {
        guard loader == nil else { return nil }
        let directory = libraryDirectory.appendingPathComponent("alsa-lib")
        let plugin = directory.appendingPathComponent("libasound_module_pcm_pipewire.so")
        return FileManager.default.fileExists(atPath: plugin.path) ? directory : nil
    }

    /// Whether a program built here (`audiosessiond`) runs on this installation's libraries,
    /// not the host's: a root's do (its libpipewire is the one under test); a prefix's run on
    /// the system's library.
    public var runsBuiltPrograms: Bool { loader != nil }

    /// `program` (built here, for the host) made to run on the root, as a binary shipped with
    /// its Swift runtime would: a copy beside it, in `in-pipewire-1.6/`, whose interpreter is
    /// the root's loader and whose DT_RPATH names the root's libraries, then the copy's own
    /// directory, which holds copies of the Swift runtime libraries it links, their RUNPATH
    /// removed. Why so much: the root's loader reads the host's `/etc/ld.so.cache`, so every
    /// library not found on a search path would come from the host; the executable's DT_RPATH
    /// (unlike the linker's RUNPATH) is searched for its libraries' own dependencies too, but
    /// only for those without a RUNPATH of their own (the Swift runtime's `$ORIGIN` would send
    /// libstdc++ to the host's). A copy, not `ld.so program`: the program still sees itself in
    /// `/proc/self/exe` (the daemon finds the checkout's rules from there, `audiosessionctl
    /// simulate` runs itself again). Made again when the program is newer than its copy. The
    /// program itself for a prefix, whose libraries the host's C library loads.
    public func runnable(_ program: String) throws -> String {
        guard let loader else { return program }
        // Tests of parallel suites ask at once: one makes the copy while the others wait, or a
        // copy of the program could be seen before its libraries are beside it.
        Self.making.lock()
        defer { Self.making.unlock() }
        let source = URL(fileURLWithPath: program)
        // `in-pipewire-1.6/` for the root in `.build-pipewire-1.6/root`.
        let rootName = prefix.deletingLastPathComponent().lastPathComponent.replacingOccurrences(of: ".build-", with: "")
        let directory = source.deletingLastPathComponent().appendingPathComponent("in-\(rootName)")
        let copy = directory.appendingPathComponent(source.lastPathComponent)
        guard Self.isOutdated(copy, comparedWith: source) else { return copy.path }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let linkedPath = try Self.command("/usr/bin/patchelf", ["--print-rpath", program])
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").map(String.init)
            .filter { $0.hasPrefix("/") }
        for library in try Self.linkedLibraries(of: program, below: linkedPath) {
            let libraryCopy = directory.appendingPathComponent(library.lastPathComponent)
            guard Self.isOutdated(libraryCopy, comparedWith: library) else { continue }
            try Self.install(library, at: libraryCopy) { try Self.command("/usr/bin/patchelf", ["--remove-rpath", $0]) }
        }
        // As the wrappers of scripts/fetch-pipewire-1.6.sh: the root's library directories.
        let searchPath = [
            libraryDirectory.path, prefix.appendingPathComponent("lib/\(libraryDirectory.lastPathComponent)").path,
            libraryDirectory.appendingPathComponent("pipewire-0.3").path, libraryDirectory.appendingPathComponent("pulseaudio").path,
            "$ORIGIN",
        ].joined(separator: ":")
        try Self.install(source, at: copy) {
            try Self.command("/usr/bin/patchelf", ["--set-interpreter", loader.path, "--force-rpath", "--set-rpath", searchPath, $0])
        }
        return copy.path
    }

    private static let making = NSLock()

    private static func isOutdated(_ copy: URL, comparedWith source: URL) -> Bool {
        let files = FileManager.default
        let built = (try? files.attributesOfItem(atPath: source.path)[.modificationDate] as? Date) ?? .distantFuture
        guard let made = try? files.attributesOfItem(atPath: copy.path)[.modificationDate] as? Date else { return true }
        return made < built
    }

    /// Copies `source` to `destination` through a partial file that `change` edits; rename(2)
    /// last, so a process running the old copy keeps it and the next start gets the new one.
    private static func install(_ source: URL, at destination: URL, change: (String) throws -> String) throws {
        let partial = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(getpid()).\(UUID().uuidString.prefix(8)).partial")
        try? FileManager.default.removeItem(at: partial)
        try FileManager.default.copyItem(at: source, to: partial)
        _ = try change(partial.path)
        guard rename(partial.path, destination.path) == 0 else {
            throw SandboxError.commandFailed("cannot move \(partial.path) to \(destination.path): errno \(errno)")
        }
    }

    /// The libraries `program` loads (`ldd`, on the host) from the directories `below`: its
    /// Swift runtime.
    private static func linkedLibraries(of program: String, below directories: [String]) throws -> [URL] {
        try command("/usr/bin/ldd", [program]).split(separator: "\n").compactMap { line in
            guard let arrow = line.range(of: " => ") else { return nil }
            let path = line[arrow.upperBound...].split(separator: " ").first.map(String.init) ?? ""
            return directories.contains { path.hasPrefix($0 + "/") } ? URL(fileURLWithPath: path) : nil
        }
    }

    /// Runs one of the tools that make the copies (`patchelf`, `ldd`) to completion; its output.
    private static func command(_ executable: String, _ arguments: [String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw SandboxError.missingInstallation(
                "\(executable) (to run our programs on the root's libraries) is missing: run scripts/install-deps.sh")
        }
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("audiosession-runnable-\(getpid())")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        return try ManagedProcess.run(executable, arguments, environment: ProcessInfo.processInfo.environment, logDirectory: logs)
    }
}

/// The WirePlumber release series a sandbox runs: where its configuration lives differs.
public enum WirePlumberSeries: Sendable, Equatable {
    /// Debian 12's 0.4.13: Lua files in `main.lua.d/` and `policy.lua.d/`.
    case v0_4
    /// The 1.4 backport's 0.5.8 and trixie-backports' 0.5.12: SPA-JSON drop-ins in
    /// `wireplumber.conf.d/`.
    case v0_5
}
