import Foundation

/// A PipeWire unpacked under a private prefix (Debian packages extracted with `dpkg-deb -x`,
/// never installed), so a sandbox can run a newer stack than the system's: PipeWire 1.4.2 and
/// WirePlumber 0.5.8 from bookworm-backports beside the system's 0.3.65 and 0.4.13
/// (`scripts/fetch-pipewire-backport.sh`).
///
/// Its programs run with `LD_LIBRARY_PATH`, `SPA_PLUGIN_DIR` and `PIPEWIRE_MODULE_DIR` pointing
/// into the prefix. Our own clients keep the system's library: the protocol is compatible.
public struct PipeWireInstallation: Sendable, Equatable {
    /// The prefix: `usr/bin`, `usr/lib/<triplet>`, `usr/share/pipewire` below it.
    public let prefix: URL
    public let libraryDirectory: URL

    /// Checks that the prefix holds a server, its library, SPA plugins and modules.
    public init(prefix: URL) throws {
        self.prefix = prefix
        let lib = prefix.appendingPathComponent("usr/lib")
        let triplet = (try? FileManager.default.contentsOfDirectory(atPath: lib.path))?
            .sorted().first { FileManager.default.fileExists(atPath: lib.appendingPathComponent("\($0)/spa-0.2").path) }
        guard let triplet else {
            throw SandboxError.missingInstallation("no usr/lib/<triplet>/spa-0.2 under \(prefix.path)")
        }
        libraryDirectory = lib.appendingPathComponent(triplet)
        for needed in [executable("pipewire"), libraryDirectory.appendingPathComponent("pipewire-0.3").path, configurationDirectory.path]
        where !FileManager.default.fileExists(atPath: needed) {
            throw SandboxError.missingInstallation("\(needed) is missing from the PipeWire prefix \(prefix.path)")
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
        case let other:
            throw SandboxError.missingInstallation("AUDIOSESSION_TEST_STACK=\(other): say 1.4 (the backport) or debian")
        }
    }

    /// The package this library was built in (the backport prefix lives there).
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// A program of this installation (`pipewire`, `pw-cat`, `pipewire-pulse`).
    public func executable(_ name: String) -> String { prefix.appendingPathComponent("usr/bin/\(name)").path }

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
    public func environment(configuration: URL) -> [String: String] {
        [
            "LD_LIBRARY_PATH": libraryDirectory.path,
            "SPA_PLUGIN_DIR": libraryDirectory.appendingPathComponent("spa-0.2").path,
            "PIPEWIRE_MODULE_DIR": libraryDirectory.appendingPathComponent("pipewire-0.3").path,
            "PIPEWIRE_CONFIG_DIR": configuration.path,
        ]
    }
}

/// The WirePlumber release series a sandbox runs: where its configuration lives differs.
public enum WirePlumberSeries: Sendable, Equatable {
    /// Debian 12's 0.4.13: Lua files in `main.lua.d/` and `policy.lua.d/`.
    case v0_4
    /// The backport's 0.5.8: SPA-JSON drop-ins in `wireplumber.conf.d/`.
    case v0_5
}
