/// When a stream that still exists stops counting as running.
///
/// A node's state lags what its app does: a relink makes a stream idle for a moment, and a
/// speech synthesizer keeps its stream running for seconds after the words end (a screen
/// reader keeps it open all day). So the daemon reports streams that are idle, or running
/// but silent, and this decides how long each may stay so before it counts as stopped.
public struct StreamQuietness: Hashable, Sendable {
    /// A stream that ducks or interrupts nobody: long enough to ride out a relink when its
    /// device goes, short enough that an idle stream does not hold its session active.
    public var idleGrace: Duration
    /// A stream of a session that ducks or interrupts others: those get their audio back
    /// within about half a second of it falling silent.
    public var quietGrace: Duration
    /// Peak level (linear, full scale 1.0) under which a watched stream is silent: -60 dBFS.
    public var silenceThreshold: Float
    /// How long a running watched stream may go without any level report before it is judged
    /// by whether it runs instead: a meter that cannot listen must not cost a duck.
    public var meterPatience: Duration
    /// How long a deactivation waits for its session's streams to stop before it fails with
    /// `isBusy`. The server reports a stream's end a moment after its app stopped it (and an
    /// idle stream counts as running for ``idleGrace``): an app that stopped its audio and then
    /// deactivates must not be refused for that lag.
    public var busyPatience: Duration

    public init(
        idleGrace: Duration = .milliseconds(1500), quietGrace: Duration = .milliseconds(250),
        silenceThreshold: Float = 0.001, meterPatience: Duration = .milliseconds(500),
        busyPatience: Duration = .milliseconds(1750)
    ) {
        self.busyPatience = busyPatience
        self.idleGrace = idleGrace
        self.quietGrace = quietGrace
        self.silenceThreshold = silenceThreshold
        self.meterPatience = meterPatience
    }

    public static let standard = StreamQuietness()

    /// Whether a session of this classification changes what others hear while it runs.
    public static func affectsOthers(_ classification: Classification) -> Bool {
        classification.options.contains(.duckOthers) || classification.effectiveInteraction > .mix
    }

    /// Whether the level of this session's playback streams is watched: only for the few
    /// that duck others (speech, notifications, prompts), since watching costs a capture
    /// stream each. Their silence means they are done. A call's does not — a quiet moment is
    /// part of the call — so a session that interrupts is judged by whether its streams run.
    public func watchesLevel(of classification: Classification) -> Bool {
        classification.options.contains(.duckOthers) || classification.effectiveInteraction == .duck
    }

    /// How long a stream of a session of this classification may be idle or silent.
    public func grace(for classification: Classification) -> Duration {
        Self.affectsOthers(classification) ? quietGrace : idleGrace
    }
}
