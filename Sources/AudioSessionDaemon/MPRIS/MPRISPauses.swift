import SessionPolicy

/// The loop side of MPRIS: the players we know, which implicit sessions have one, and the
/// pauses we pressed for interruptions. Confined to the policy loop thread, like the
/// coordinator that owns it; the bus side reaches it only through `perform`.
final class MPRISPauses: @unchecked Sendable {
    let controller: MPRISController
    /// Runs work on the policy loop (`PipeWireGraph.perform`): how bus results come back.
    let perform: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// How long after pressing Pause we wait to *see* `PlaybackStatus` become Paused before
    /// holding the streams instead. WirePlumber sleeps a fixed 1000 ms; we watch and act on
    /// the confirmation, and only a player that never confirms costs this long.
    let confirmTimeout: Duration

    var players: [String: MPRISPlayer] = [:]
    /// Implicit sessions whose capabilities include `.mpris` (the engine was told).
    var sessionsWithPlayers: Set<SessionID> = []
    /// Sessions paused by us over MPRIS for an interruption, until it ends (and, when we
    /// press Play, until their streams run again).
    var pauses: [SessionID: MPRISPause] = [:]
    /// One-shot work not tied to a pause (a dispatch timer stops when nobody holds it).
    var timers: [UInt64: ScheduledWork] = [:]
    var nextTimer: UInt64 = 0

    init(
        controller: MPRISController, confirmTimeout: Duration = .milliseconds(1000),
        perform: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) {
        self.controller = controller
        self.confirmTimeout = confirmTimeout
        self.perform = perform
    }
}

/// One interruption carried out by MPRIS Pause: the activity changes of the session's streams
/// are ours, not its user's, while this exists.
struct MPRISPause {
    enum Phase {
        /// Pause pressed, not yet seen as Paused by every player.
        case pausing
        /// Every player confirmed (or we hold the streams instead).
        case paused
        /// The interruption ended with shouldResume and we pressed Play.
        case resuming
    }

    var phase: Phase = .pausing
    var players: [String: PlayerPause] = [:]
    var began = ContinuousClock.now
    var timer: ScheduledWork?
    /// The players did not confirm (timeout, error, gone): the streams are held instead.
    var heldInstead = false

    var awaitingPause: Bool { players.values.contains { $0.awaitingPause } }
}

/// What we did to one player of a paused session, and what its user did meanwhile.
struct PlayerPause {
    /// It was Playing when we paused it: only then may the end of the interruption press Play.
    var wasPlaying: Bool
    var awaitingPause = false
    var awaitingPlay = false
    /// Its user played or stopped it during the interruption: the end never presses Play.
    var userTookOver = false
}
