import SessionPolicy

/// The loop side of MPRIS: the players we know, which implicit sessions have one, and the
/// pauses we pressed for interruptions. It lives on the daemon's loop, like the coordinator
/// that owns it (``LoopBound``); the bus side reaches it only through `perform`.
///
/// Every pause we owe a `Play` is journalled (``MPRISPauseJournal``) as it changes, so that
/// no stop, crash or PipeWire restart leaves a player paused by us for good.
final class MPRISPauses: Sendable {
    let buttons: any MPRISButtons
    /// Runs work on the policy loop (``DaemonLoop/perform(_:)``): how bus results come back.
    let perform: @Sendable (@escaping @Sendable () -> Void) -> Void

    private struct State {
        var players: [String: MPRISPlayer] = [:]
        var playsInFlight: Set<String> = []
        var sessionsWithPlayers: Set<SessionID> = []
        var pauses: [SessionID: MPRISPause] = [:]
        var leftovers: [MPRISPauseJournal.PausedPlayer]
        var discovered = false
        var stopping = false
        var journalled: MPRISPauseJournal
    }

    private let state: LoopBound<State>

    var players: [String: MPRISPlayer] {
        get { state.players }
        _modify { yield &state.players }
    }
    /// Players we pressed Play on that have not reported Playing yet. Their stream can run
    /// before their status says so (the pause is then over): a new interruption in between
    /// must still count them as playing, ours to pause, and their late Playing as our Play's.
    var playsInFlight: Set<String> {
        get { state.playsInFlight }
        _modify { yield &state.playsInFlight }
    }
    /// Implicit sessions whose capabilities include `.mpris` (the engine was told).
    var sessionsWithPlayers: Set<SessionID> {
        get { state.sessionsWithPlayers }
        _modify { yield &state.sessionsWithPlayers }
    }
    /// Sessions paused by us over MPRIS for an interruption, until it ends (and, when we
    /// press Play, until their streams run again). Journalled as it changes.
    var pauses: [SessionID: MPRISPause] {
        get { state.pauses }
        _modify {
            yield &state.pauses
            journalPauses()
        }
    }
    /// Players paused by us whose session is not known (any more): read from the journal a
    /// previous run left, or kept from this run's pauses when PipeWire went away. Each is
    /// played or adopted once the graph and the players are known again. Journalled as it
    /// changes.
    var leftovers: [MPRISPauseJournal.PausedPlayer] {
        get { state.leftovers }
        _modify {
            yield &state.leftovers
            journalPauses()
        }
    }
    /// Every player on the bus at start has been reported: a leftover whose player is not
    /// among them is gone.
    var discovered: Bool {
        get { state.discovered }
        _modify { yield &state.discovered }
    }
    /// The daemon is stopping: it pressed Play on what it paused and presses nothing more.
    var stopping: Bool {
        get { state.stopping }
        _modify { yield &state.stopping }
    }

    /// The journal file; nil journals nothing (unit tests that do not look at it).
    private let journalFile: JournalFile<MPRISPauseJournal>?
    /// How many players the journal a previous run left names (read before any loop runs).
    let leftoversAtStart: Int

    /// Reads the journal a previous run left: its entries are the first leftovers. `loop` is
    /// where the state lives; `perform` hands bus results to it (by default its `perform`).
    init(
        buttons: any MPRISButtons, journalFile: JournalFile<MPRISPauseJournal>?, loop: DaemonLoop,
        perform: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil
    ) {
        self.buttons = buttons
        self.journalFile = journalFile
        self.perform = perform ?? { loop.perform($0) }
        let journalled = journalFile?.read() ?? MPRISPauseJournal()
        leftoversAtStart = journalled.players.count
        state = LoopBound(State(leftovers: journalled.players, journalled: journalled), on: loop)
    }

    /// The players we owe a Play now: those of our pauses, and the leftovers.
    var owedPlays: MPRISPauseJournal {
        var players = Set(leftovers)
        for pause in pauses.values {
            for player in pause.owedPlayers.values { players.insert(player.identity) }
        }
        return MPRISPauseJournal(players: players.sorted())
    }

    private func journalPauses() {
        let owed = owedPlays
        guard owed != state.journalled else { return }
        state.journalled = owed
        journalFile?.write(owed)
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
    /// When the interruption began, on the loop's clock.
    var began: Timestamp
    var timer: ScheduledWork?
    /// The players did not confirm (timeout, error, gone): the streams are held instead.
    var heldInstead = false

    var awaitingPause: Bool { players.values.contains { $0.awaitingPause } }

    /// The players of it we owe a Play, by bus name (``PlayerPause/isOwed(in:)``).
    var owedPlayers: [String: PlayerPause] { players.filter { $0.value.isOwed(in: phase) } }
}

/// What we did to one player of a paused session, and what its user did meanwhile.
struct PlayerPause {
    /// The player connection we paused, as the journal names it.
    var identity: MPRISPauseJournal.PausedPlayer
    /// It was Playing when we paused it: only then may the end of the interruption press Play.
    var wasPlaying: Bool
    var awaitingPause = false
    var awaitingPlay = false
    /// Its user played or stopped it during the interruption: the end never presses Play.
    var userTookOver = false
    /// Its session's stream played when the interruption began while it said otherwise (a
    /// player just started says Stopped until it has loaded; one resumed by a key says Paused
    /// for a moment): its next status is the late report of that playing, and a Playing then
    /// is not its user's press.
    var statusLagsItsStream = false

    init(_ player: MPRISPlayer, wasPlaying: Bool) {
        identity = MPRISPauseJournal.PausedPlayer(
            busName: player.busName, uniqueName: player.uniqueName, processID: player.processID)
        self.wasPlaying = wasPlaying
    }

    /// We pressed its Pause (it was Playing) and still owe it a Play: from the press until
    /// our Play is confirmed, unless its user took over. What the journal keeps.
    func isOwed(in phase: MPRISPause.Phase) -> Bool {
        wasPlaying && !userTookOver && (phase != .resuming || awaitingPlay)
    }
}
