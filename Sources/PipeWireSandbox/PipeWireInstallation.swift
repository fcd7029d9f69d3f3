import Foundation

/// A PipeWire unpacked under a private prefix (Debian packages extracted with `dpkg-deb -x`,
/// never installed), so a sandbox can run a newer server than the system's: PipeWire 1.4.2
/// from bookworm-backports beside the system's 0.3.65 (`scripts/fetch-pipewire-backport.sh`).
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

    /// A program of this installation (`pipewire`, `pw-cat`, `pipewire-pulse`).
    public func executable(_ name: String) -> String { prefix.appendingPathComponent("usr/bin/\(name)").path }

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
