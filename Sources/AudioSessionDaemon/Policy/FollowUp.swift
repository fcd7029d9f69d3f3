import SessionPolicy

/// What a component of the coordinator (route execution, the player control) found must happen
/// next, returned in order instead of done: the coordinator carries each out, so no component
/// reaches the engine, the sessions or their effects itself, and each call runs to its end
/// before anything it caused begins.
enum FollowUp: Equatable {
    /// An event for the engine; its decisions are carried out before the next follow-up.
    case submit(PolicyEvent)
    /// A stream counts as running, or not, without the engine being told (it knows already).
    case markReported(StreamID, active: Bool)
    /// A stream that runs starts counting as running (its session is classified again first).
    case start(StreamID)
    /// A session's hold for a lost route (pause on unplug) becomes this method, or ends.
    case routeLoss(SessionID, InterruptionMethod?)
    /// Whether a session has a media player changed: the engine learns its interruption methods.
    case capabilitiesChanged(SessionID)
    /// What the Now Playing player shows may have changed.
    case refreshNowPlaying
    /// Work of the component that must see what came before it carried out.
    case then(DueWork)
}

/// Work a component asked for that comes back to it later — a timer, a player's answer, or the
/// rest of a step after the engine heard of it — named by what it is, never by whom to call.
/// The coordinator hands it back to its component with what it knows then.
enum DueWork: Equatable {
    /// Whether the players of a session paused for a lost route have stopped.
    case routeLossCheck(SessionID, since: Timestamp)
    /// A player's Pause was not confirmed in time.
    case pauseUnconfirmed(SessionID)
    /// The grace after our Play is over: the session's streams are reported as they are.
    case resumeGraceOver(SessionID)
    /// A pause of ours is over: what the session's streams did meanwhile reaches the engine.
    case withheldActivity(SessionID)
    /// A stream its app stopped without a cork during a pause of ours, its idle grace over.
    case withheldIdle(SessionID, StreamID)
    /// A player refused a button we pressed for a session.
    case pressFailed(member: String, player: String, session: SessionID, failure: String)
    /// A leftover pause's sessions have been told their streams run: now it is decided.
    case leftoverAsked(MPRISPauseJournal.PausedPlayer, sessions: [SessionID])
    /// A stream idle or silent since its grace began.
    case idleGraceOver(StreamID)
    /// A stream no rule classifies has run past the short-sound limit.
    case longPlayOver(StreamID)
    /// A call's holdover is over: its app is classified again.
    case holdoverOver(SessionID)
    /// An unknown app's opening window is over.
    case openingOver(SessionID)
    /// A meter's patience is over.
    case meterPatienceOver(StreamID)
    /// An app told of its interruption over the session API had its grace.
    case interruptionGraceOver(SessionID)
    /// An event for the engine that is due now (a recheck, the bound of a profile switch).
    case engineEvent(PolicyEvent)
}

/// Where ``DueWork`` re-enters the coordinator: components schedule and post through it, and
/// hold no reference to whoever handles what they post.
final class DueWorkInbox: Sendable {
    let loop: DaemonLoop
    /// The handler (the coordinator's), wired once before anything is scheduled.
    let handler = WiredOnce<@Sendable (DueWork) -> Void>(fallback: { _ in })
    private struct State {
        /// One-shot timers kept until they fired (a dispatch timer stops when nobody holds it).
        var oneShots: [UInt64: ScheduledWork] = [:]
        var nextOneShot: UInt64 = 0
    }

    private let state: LoopBound<State>

    init(loop: DaemonLoop) {
        self.loop = loop
        state = LoopBound(State(), on: loop)
    }

    var now: Timestamp { loop.now }

    /// `work` is delivered after `delay`, unless the returned timer is cancelled first.
    func schedule(after delay: Duration, _ work: DueWork) -> ScheduledWork {
        loop.schedule(after: delay) { [weak self] in self?.handler.value(work) }
    }

    /// `work` is delivered after `delay` (at the loop's next turn for zero), whatever happens.
    func later(_ delay: Duration, _ work: DueWork) {
        let key = state.nextOneShot
        state.nextOneShot += 1
        state.oneShots[key] = loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            self.state.oneShots[key] = nil
            self.handler.value(work)
        }
    }

    /// Hands `work` to the handler now (on the loop: a bus answer, once it is back there).
    func deliver(_ work: DueWork) {
        loop.assertConfined("due work")
        handler.value(work)
    }
}
