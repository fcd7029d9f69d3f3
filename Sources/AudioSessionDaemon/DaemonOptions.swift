/// How `audiosessiond` was asked to run. Filled from the command line by the thin executable.
public struct DaemonOptions: Sendable {
    /// Link streams to devices ourselves (the default), or leave linking to another session
    /// manager such as WirePlumber and only apply policy (`--no-linking`).
    public var linksStreams: Bool
    /// The PipeWire remote to attach to; `nil` means the usual environment
    /// (`PIPEWIRE_REMOTE`, else `pipewire-0` in `XDG_RUNTIME_DIR`).
    public var remote: String?

    public init(linksStreams: Bool = true, remote: String? = nil) {
        self.linksStreams = linksStreams
        self.remote = remote
    }
}
