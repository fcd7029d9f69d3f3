import SessionPolicy

/// What the policy imposes on each session now (``SessionEffects``), carried to every stream
/// of it by ``Enforcement`` — including streams that appear later — and the session API's grace
/// before an interrupted app that did not stop is held (``DueWork/interruptionGraceOver(_:)``).
final class EffectsTable: Sendable {
    private struct State {
        var bySession: [SessionID: SessionEffects] = [:]
        var graceTimers: [SessionID: ScheduledWork] = [:]
    }

    private let state: LoopBound<State>
    private let enforcement: Enforcement
    private let inbox: DueWorkInbox
    private let interruptionGrace: Duration

    init(enforcement: Enforcement, inbox: DueWorkInbox, interruptionGrace: Duration) {
        self.enforcement = enforcement
        self.inbox = inbox
        self.interruptionGrace = interruptionGrace
        state = LoopBound(State(), on: inbox.loop)
    }

    var bySession: [SessionID: SessionEffects] { state.bySession }

    subscript(id: SessionID) -> SessionEffects? { state.bySession[id] }

    /// Changes a session's effects and brings each of its streams in line; returns the streams
    /// it holds now and did not before (a held stream is not idle).
    func update(
        _ id: SessionID, streams: [ImplicitSessions.StreamRecord], ramp: Duration = .zero, _ change: (inout SessionEffects) -> Void
    ) -> [StreamID] {
        let before = state.bySession[id] ?? SessionEffects()
        var after = before
        change(&after)
        state.bySession[id] = after
        for record in streams { enforcement.apply(before: before, after: after, to: record.stream, ramp: ramp) }
        return after.isHeld && !before.isHeld ? streams.map(\.stream.id) : []
    }

    /// A stream joins a session: it gets the session's effects at once. True when that holds it.
    func applySession(_ id: SessionID, to stream: BackendStream) -> Bool {
        guard let effects = state.bySession[id] else { return false }
        enforcement.apply(before: SessionEffects(), after: effects, to: stream, ramp: .zero)
        return effects.isHeld
    }

    /// A session is gone.
    func remove(_ id: SessionID) {
        state.bySession[id] = nil
        cancelGrace(id)
    }

    /// An app told of its interruption over the session API gets its grace to stop.
    func awaitGrace(of id: SessionID) {
        state.graceTimers[id]?.cancel()
        state.graceTimers[id] = inbox.schedule(after: interruptionGrace, .interruptionGraceOver(id))
    }

    func cancelGrace(_ id: SessionID) {
        state.graceTimers.removeValue(forKey: id)?.cancel()
    }

    /// The grace came back: true when the session is still interrupted over the session API
    /// (its streams are to be held).
    func graceOver(_ id: SessionID) -> Bool {
        guard state.bySession[id]?.interruption == .sessionAPI else { return false }
        state.graceTimers[id] = nil
        return true
    }
}
