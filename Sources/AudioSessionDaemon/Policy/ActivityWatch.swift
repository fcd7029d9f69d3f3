import SessionPolicy

/// Whether each stream counts as running, as far as time and sound tell: the timers that
/// judge idle and silent streams (``StreamQuietness``), short sounds
/// (``AppBehaviour/shortSoundLimit``), a call's holdover (``AppBehaviour/callHoldover``) and an
/// unknown app's opening window, and the meters that listen to the streams of sessions that
/// duck others (``StreamLevels``).
///
/// It keeps the timers and what was heard; each timer comes back through the inbox as
/// ``DueWork`` named by what is due, and the coordinator judges it with what it knows then.
final class ActivityWatch: Sendable {
    let quietness: StreamQuietness
    let behaviour: AppBehaviour
    /// Where meters are started and stopped.
    private unowned let backend: AudioBackend
    private let inbox: DueWorkInbox
    private struct State {
        var levels = StreamLevels()
        var idleTimers: [StreamID: ScheduledWork] = [:]
        /// Playback streams that may still be short sounds.
        var longPlayTimers: [StreamID: ScheduledWork] = [:]
        /// Calls that stopped being one a moment ago, by session.
        var holdoverTimers: [SessionID: ScheduledWork] = [:]
    }

    private let state: LoopBound<State>

    init(quietness: StreamQuietness = .standard, behaviour: AppBehaviour = .standard, backend: AudioBackend, inbox: DueWorkInbox) {
        self.quietness = quietness
        self.behaviour = behaviour
        self.backend = backend
        self.inbox = inbox
        state = LoopBound(State(), on: inbox.loop)
    }

    // MARK: - Levels

    /// Whether a running stream sounds: an unwatched one is taken at its word (its node runs).
    func sounds(_ id: StreamID) -> Bool { state.levels.sounds(id) }

    func isWatched(_ id: StreamID) -> Bool { state.levels.isWatched(id) }

    /// A meter's report; false (and ignored) for a stream not watched.
    func heard(_ id: StreamID, audible: Bool) -> Bool {
        guard state.levels.isWatched(id) else { return false }
        state.levels.heard(id, audible: audible)
        return true
    }

    /// Starts a meter on a stream of a session that ducks others; a meter that reports nothing
    /// within its patience comes back as ``DueWork/meterPatienceOver(_:)``. A backend that cannot
    /// listen leaves it unwatched (the stream is judged by whether it runs).
    func watchLevel(of id: StreamID) {
        guard !state.levels.isWatched(id), backend.watchLevel(of: id, threshold: quietness.silenceThreshold) else { return }
        state.levels.watch(id)
        inbox.later(quietness.meterPatience, .meterPatienceOver(id))
    }

    /// Stops a stream's meter; true when it was watched (it counts by whether it runs from now).
    @discardableResult
    func stopWatchingLevel(of id: StreamID) -> Bool {
        guard state.levels.unwatch(id) else { return false }
        backend.stopWatchingLevel(of: id)
        return true
    }

    /// Watched, and its meter said nothing in its patience.
    func meterSaidNothing(_ id: StreamID) -> Bool { state.levels.awaitsReport(id) }

    /// The meter said nothing in its patience while its stream did not run: the patience begins
    /// again when the stream runs (``streamRuns(_:)``), not before, so an idle stream costs no timer.
    func meterPatienceSpentIdle(_ id: StreamID) { state.levels.spentPatienceIdle(id) }

    /// The stream runs: a meter whose patience was spent while it idled gets it again.
    func streamRuns(_ id: StreamID) {
        guard state.levels.takePatienceSpentIdle(id) else { return }
        inbox.later(quietness.meterPatience, .meterPatienceOver(id))
    }

    // MARK: - Timers

    /// An idle or silent stream stops counting after its grace (shorter for a session that
    /// ducks or interrupts others): ``DueWork/idleGraceOver(_:)``.
    func armIdle(_ id: StreamID, classification: Classification?) {
        cancelIdle(id)
        let grace = classification.map { quietness.grace(for: $0) } ?? quietness.idleGrace
        state.idleTimers[id] = inbox.schedule(after: grace, .idleGraceOver(id))
    }

    func cancelIdle(_ id: StreamID) {
        state.idleTimers.removeValue(forKey: id)?.cancel()
    }

    /// The idle timer came back: it is no longer pending.
    func idleGraceOver(_ id: StreamID) {
        state.idleTimers[id] = nil
    }

    /// A stream no rule classifies that runs past the short-sound limit without a stop is no
    /// short sound: ``DueWork/longPlayOver(_:)``.
    func awaitLongPlay(_ id: StreamID) {
        cancelLongPlay(id)
        state.longPlayTimers[id] = inbox.schedule(after: behaviour.shortSoundLimit, .longPlayOver(id))
    }

    func cancelLongPlay(_ id: StreamID) {
        state.longPlayTimers.removeValue(forKey: id)?.cancel()
    }

    func longPlayOver(_ id: StreamID) {
        state.longPlayTimers[id] = nil
    }

    /// A call that stops being one while it still runs is judged again after the holdover
    /// (``DueWork/holdoverOver(_:)``); one pending already runs on.
    func holdOver(_ session: SessionID) {
        guard state.holdoverTimers[session] == nil else { return }
        state.holdoverTimers[session] = inbox.schedule(after: behaviour.callHoldover, .holdoverOver(session))
    }

    func cancelHoldover(_ session: SessionID) {
        state.holdoverTimers.removeValue(forKey: session)?.cancel()
    }

    func holdoverOver(_ session: SessionID) {
        state.holdoverTimers[session] = nil
    }

    /// An app the rules say nothing about is spared while it opens its streams:
    /// ``DueWork/openingOver(_:)`` after the opening window.
    func awaitOpening(of session: SessionID) {
        inbox.later(behaviour.openingWindow, .openingOver(session))
    }

    // MARK: - Forgetting

    /// A stream is gone: its timers and its meter.
    func forget(_ id: StreamID) {
        cancelIdle(id)
        cancelLongPlay(id)
        stopWatchingLevel(of: id)
    }

    /// The graph went away: every timer and what was heard (the backend's meters went with it).
    func forgetAll() {
        for timer in state.idleTimers.values { timer.cancel() }
        for timer in state.longPlayTimers.values { timer.cancel() }
        state.idleTimers.removeAll()
        state.longPlayTimers.removeAll()
        state.levels.removeAll()
    }
}
