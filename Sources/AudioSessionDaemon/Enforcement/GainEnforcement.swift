import Logging
import SessionPolicy

/// Carries out gain decisions (ducks, unducks, silencing) on streams: moves each stream's
/// factor along a ``DuckingRamp`` and always ends exactly on the target; applies the factor as
/// ``OurVolumeFactor`` over the stream's own volume; tells its own writes from its user's, and
/// lets the user's win.
///
/// Every fade is stepped by the daemon on one clock, with plain volume writes, on every server:
/// a single timer advances every running ramp, so a duck of a hundred streams is one wake-up
/// and one batch of writes per step, not a hundred timers. A plain write is heard at the next
/// cycle and the last one wins, so a fade can turn around at any step, from the level actually
/// applied. (PipeWire's converter can ramp by itself from 0.3.68, but up to 1.4 it rejects a
/// ramp while another runs, stops one step short, and overwrites a plain write with its next
/// step: a duck undone mid-ramp could stay ducked. docs/architecture.md has the measurements.)
/// Every base volume it would have to put back is in the journal before the write that changes
/// it goes out.
final class GainEnforcement: Sendable {
    private struct Ramp {
        var ramp: DuckingRamp
        var started: Timestamp
    }

    private unowned let backend: AudioBackend
    private let loop: DaemonLoop
    private let journal: ChangeJournal
    private let logger: Logger
    private let step: Duration
    private struct State {
        /// The factor last asked for each stream we touched.
        var current: [StreamID: Double] = [:]
        var ramps: [StreamID: Ramp] = [:]
        /// The one timer of every stepped ramp: armed while any runs.
        var clock: ScheduledWork?
        /// When the clock is due, and (when debugging) the loop thread's schedule as it was
        /// armed: a step that comes late says why.
        var clockDue: Timestamp?
        var scheduleAtArm: ThreadSchedule?
        /// Our share of each stream's volume we changed.
        var factors: [StreamID: OurVolumeFactor] = [:]
        /// Factors asked for before the stream's volume could be written (``AudioBackend/volume(of:)``).
        var deferred: [StreamID: Double] = [:]
        /// Everything was undone for exit: a ramp step that fires after that changes nothing (it
        /// would leave a stream ducked behind the daemon).
        var undone = false
    }

    private let state: LoopBound<State>

    /// Each stream's gain now (1 for a stream we never touched).
    var current: [StreamID: Double] { state.current }

    init(backend: AudioBackend, loop: DaemonLoop, journal: ChangeJournal, logger: Logger, step: Duration) {
        self.backend = backend
        self.loop = loop
        self.journal = journal
        self.logger = logger
        self.step = step
        state = LoopBound(State(), on: loop)
    }

    // MARK: - Entry point

    /// Moves a stream's factor to `target` over `duration` (at once when zero).
    func ramp(_ stream: StreamID, to target: Double, over duration: Duration) {
        loop.assertConfined("gain enforcement")
        let from = state.current[stream] ?? 1.0
        stopRamp(stream)
        if from == target { return }
        guard duration > .zero else {
            write(stream, target)
            return
        }
        let ramp = DuckingRamp(from: from, to: target, duration: duration, step: step)
        // Start one step in: the first write is the first audible step, not a no-op at t=0.
        // It goes out at once; the later steps on the clock, with every other ramp's.
        let now = loop.now
        let running = Ramp(ramp: ramp, started: now.advanced(by: .zero - step))
        if advance(stream, running, at: now) { state.ramps[stream] = running }
        armClock()
    }

    // MARK: - What the server reports

    /// The stream's volume as the server reports it: our write coming back, the stream putting
    /// its own back (ours is written again), or someone else's (theirs wins). A factor that
    /// waited for the stream to be writable is written once it is.
    func volumeReported(_ volume: Float, of stream: StreamID) {
        if var factor = state.factors[stream] {
            // Read before the switch: the log lines' closures must not capture `factor`, which
            // the switch mutates (Swift 6.3's optimizer crashes on that in release builds).
            let last = factor.last
            switch factor.observe(volume) {
            case .ours:
                state.factors[stream] = factor
            case .restored:
                state.factors[stream] = nil
            case .reasserted(let rewrite):
                state.factors[stream] = factor
                backend.writeVolume(rewrite, of: stream)
            case .external:
                logger.info("stream \(stream): volume changed by someone else while ducked (to \(volume), ours \(last.map { "\($0)" } ?? "none")); theirs wins")
                letTheirsWin(stream)
            case .externalBeforeOurs(let theirs):
                logger.info("stream \(stream): volume changed by someone else just before our \(last.map { "\($0)" } ?? "none") landed (to \(volume)); theirs is written again, and wins")
                letTheirsWin(stream)
                backend.writeVolume(theirs, of: stream)
            }
        }
        if let factor = state.deferred[stream], backend.volume(of: stream) != nil {
            state.deferred[stream] = nil
            apply(factor, to: stream)
        }
    }

    /// Someone else set the stream's volume: we stop adjusting it until the policy asks again,
    /// and nothing of ours is left to undo.
    private func letTheirsWin(_ stream: StreamID) {
        state.factors[stream] = nil
        journal.record(stream, identity: backend.identity(of: stream)) { $0.baseVolume = nil }
        stopRamp(stream)
        state.current[stream] = 1.0
    }

    /// Forgets a stream (gone).
    func forget(_ stream: StreamID) {
        stopRamp(stream)
        state.current[stream] = nil
        state.factors[stream] = nil
        state.deferred[stream] = nil
    }

    /// The server is gone, and our changes with it.
    func forgetAll() {
        state.ramps.removeAll()
        state.clock?.cancel()
        state.clock = nil
        state.current.removeAll()
        state.factors.removeAll()
        state.deferred.removeAll()
    }

    /// The daemon is exiting: what was written is being undone, nothing more is written.
    func stop() {
        state.undone = true
        forgetAll()
    }

    // MARK: - Steps

    /// One tick of the clock: every running ramp takes its step (by its own elapsed time, so
    /// ramps started between ticks keep their shape), in one loop turn.
    private func tick() {
        state.clock = nil
        let now = loop.now
        reportLateness(at: now)
        for (stream, running) in state.ramps.sorted(by: { $0.key < $1.key }) {
            if !advance(stream, running, at: now) { state.ramps[stream] = nil }
        }
        armClock()
    }

    /// Writes the ramp's gain at `now`; false once that was its last step.
    private func advance(_ stream: StreamID, _ running: Ramp, at now: Timestamp) -> Bool {
        let elapsed = now - running.started
        write(stream, running.ramp.gain(after: elapsed))
        return elapsed < running.ramp.duration
    }

    private func armClock() {
        guard state.clock == nil, !state.ramps.isEmpty else { return }
        state.clockDue = loop.now.advanced(by: step)
        state.scheduleAtArm = logger.logLevel <= .debug ? ThreadSchedule.current() : nil
        state.clock = loop.schedule(after: step) { [weak self] in self?.tick() }
    }

    /// A step more than three steps late is heard as a jump: the log says by how much, and
    /// whether the loop thread was busy, waiting for a CPU, or blocked meanwhile.
    private func reportLateness(at now: Timestamp) {
        guard let due = state.clockDue, now > due else { return }
        let late = Duration.nanoseconds(Int64(now.nanoseconds - due.nanoseconds))
        guard late > step * 3 else { return }
        let meanwhile = state.scheduleAtArm.flatMap { armed in ThreadSchedule.current().map { $0.since(armed) } }
        logger.debug(
            "fade step \(Self.milliseconds(late)) ms late\(meanwhile.map { "; the loop thread meanwhile on a CPU \(Self.milliseconds($0.onCPU)) ms, waiting for one \(Self.milliseconds($0.waiting)) ms" } ?? "")")
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let tenths = duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(abs(tenths % 10))"
    }

    private func stopRamp(_ stream: StreamID) {
        guard state.ramps.removeValue(forKey: stream) != nil, state.ramps.isEmpty else { return }
        state.clock?.cancel()
        state.clock = nil
        state.clockDue = nil
    }

    private func write(_ stream: StreamID, _ factor: Double) {
        state.current[stream] = factor
        apply(factor, to: stream)
    }

    /// Writes `base × factor`, journalling the base first.
    private func apply(_ factor: Double, to stream: StreamID) {
        guard !state.undone else { return }
        guard let volumeNow = backend.volume(of: stream) else {
            state.deferred[stream] = factor  // not writable yet: written when it is
            return
        }
        state.deferred[stream] = nil
        let volume = volumeWritten(for: factor, of: stream, now: volumeNow)
        backend.writeVolume(volume, of: stream)
    }

    /// The volume to write for `factor`, with its base journalled.
    private func volumeWritten(for factor: Double, of stream: StreamID, now volumeNow: Float) -> Float {
        var ours = state.factors[stream] ?? OurVolumeFactor(base: volumeNow)
        let volume = ours.volume(for: factor)
        state.factors[stream] = ours
        journal.record(stream, identity: backend.identity(of: stream)) {
            // At factor 1.0 the stream is at its base: nothing of ours is left to undo.
            $0.baseVolume = factor == 1.0 ? nil : ours.base
        }
        return volume
    }
}
