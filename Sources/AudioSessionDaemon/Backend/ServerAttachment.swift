/// One audio server the daemon attaches to, as its life cycle needs it: the loop its state
/// lives on, the backend enforcement acts through, and how to start, flush and stop.
protocol ServerAttachment: AnyObject, Sendable {
    /// Which server: for the log and `status`.
    var server: AudioServerKind { get }
    var loop: DaemonLoop { get }
    var backend: AudioBackend { get }
    /// Connects, and delivers the server's events on the loop from now on.
    func start(onEvent: @escaping @Sendable (BackendEvent) -> Void)
    /// On the loop, after enforcement undid its changes: undoes what only the backend knows
    /// (PulseAudio: its parking devices, the server's role modules and stream-restore
    /// records), then calls `done` on the loop.
    func undoBackendState(then done: @escaping @Sendable () -> Void)
    /// Calls `done` (on any thread) once the server has received everything sent so far.
    func flush(_ done: @escaping @Sendable () -> Void)
    /// Disconnects; call from outside the loop.
    func stop()
}

/// The audio servers the daemon can attach to (`--backend`).
public enum AudioServerKind: String, Sendable, CaseIterable {
    case pipewire
    case pulseaudio

    public var displayName: String { self == .pipewire ? "PipeWire" : "PulseAudio" }
}
