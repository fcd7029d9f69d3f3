import SessionPolicy

/// Moves each stream's gain factor along a ``DuckingRamp`` and always ends exactly on the
/// target.
///
/// Where the backend can ramp a stream itself (PipeWire ≥ 0.3.68), the whole ramp is one
/// backend call and the server steps it on its own clock. Elsewhere (PipeWire 0.3.65) the
/// daemon steps it: one backend write per step.
///
/// Confined to the backend's loop thread.
final class GainRamps: @unchecked Sendable {
    private struct Ramp {
        var ramp: DuckingRamp
        var started: Timestamp
        var timer: ScheduledWork?
    }

    private unowned let backend: AudioBackend
    private let loop: DaemonLoop
    /// The factor last written for each stream we touched.
    private(set) var current: [StreamID: Double] = [:]
    private var ramps: [StreamID: Ramp] = [:]
    private let step: Duration

    init(backend: AudioBackend, loop: DaemonLoop, step: Duration = EnforcementTiming.standard.rampStep) {
        self.backend = backend
        self.loop = loop
        self.step = step
    }

    /// Moves a stream's factor to `target` over `duration` (at once when zero).
    func ramp(_ stream: StreamID, to target: Double, over duration: Duration) {
        let from = current[stream] ?? 1.0
        ramps[stream]?.timer?.cancel()
        ramps[stream] = nil
        if from == target { return }
        guard duration > .zero else {
            write(stream, target)
            return
        }
        let ramp = DuckingRamp(from: from, to: target, duration: duration, step: step)
        if backend.rampsGainNatively(stream) {
            current[stream] = target
            backend.rampGainFactor(along: ramp, of: stream)
            return
        }
        // Start one step in: the first write is the first audible step, not a no-op at t=0.
        ramps[stream] = Ramp(ramp: ramp, started: loop.now.advanced(by: .zero - step))
        tick(stream)
    }

    /// Forgets a stream (gone, or its volume was taken over by the user).
    func forget(_ stream: StreamID) {
        ramps.removeValue(forKey: stream)?.timer?.cancel()
        current[stream] = nil
    }

    /// Sets the factor we believe a stream has, without writing (the backend re-based it).
    func assume(_ factor: Double, for stream: StreamID) {
        ramps.removeValue(forKey: stream)?.timer?.cancel()
        current[stream] = factor
    }

    private func tick(_ stream: StreamID) {
        guard let state = ramps[stream] else { return }
        let elapsed = loop.now - state.started
        let gain = state.ramp.gain(after: elapsed)
        write(stream, gain)
        guard elapsed < state.ramp.duration else {
            ramps[stream] = nil
            return
        }
        ramps[stream]?.timer = loop.schedule(after: step) { [weak self] in self?.tick(stream) }
    }

    private func write(_ stream: StreamID, _ gain: Double) {
        current[stream] = gain
        backend.setGainFactor(gain, of: stream)
    }
}
