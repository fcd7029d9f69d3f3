#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SessionPolicy

/// How `audiosessiond` was asked to run. Filled from the command line by the thin executable.
public struct DaemonOptions: Sendable {
    /// Who links streams to devices (`--linking`): by default the daemon, only while no other
    /// session manager such as WirePlumber does.
    public var linking: LinkingMode
    /// The PipeWire remote to attach to; `nil` means the usual environment
    /// (`PIPEWIRE_REMOTE`, else `pipewire-0` in `XDG_RUNTIME_DIR`).
    public var remote: String?
    /// Rules directories added after the standard layers (`--rules DIR`, highest precedence).
    public var extraRulesDirectories: [String]
    /// Where the daemon keeps what must survive it (the enforcement journal).
    public var stateDirectory: URL
    /// Serve the session API on the user session bus (`--no-bus` turns it off).
    public var servesBus: Bool
    /// Which audio server to attach to (`--backend`): by default PipeWire when it answers,
    /// else PulseAudio.
    public var backend: BackendChoice = .auto
    /// The PulseAudio server to attach to (`unix:/path`); nil means libpulse's usual choice
    /// (`PULSE_SERVER`, else `pulse/native` in `XDG_RUNTIME_DIR`).
    public var pulseServer: String?

    public init(
        linking: LinkingMode = .auto, remote: String? = nil, extraRulesDirectories: [String] = [],
        stateDirectory: URL = DaemonOptions.defaultStateDirectory(), servesBus: Bool = true
    ) {
        self.servesBus = servesBus
        self.linking = linking
        self.remote = remote
        self.extraRulesDirectories = extraRulesDirectories
        self.stateDirectory = stateDirectory
    }

    /// `$XDG_STATE_HOME/audiosession`, `XDG_STATE_HOME` defaulting to `~/.local/state`.
    public static func defaultStateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("audiosession")
        }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/audiosession")
    }
}
