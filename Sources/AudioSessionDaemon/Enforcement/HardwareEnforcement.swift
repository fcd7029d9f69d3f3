import Logging
import SessionPolicy

/// Carries out the hardware choice (preferred I/O buffer duration and sample rate become the
/// server's forced quantum and rate): journalled before it is written, so a forced quantum
/// never outlives the daemon.
final class HardwareEnforcement: Sendable {
    private unowned let backend: AudioBackend
    private let journal: ChangeJournal
    private let logger: Logger
    private struct State {
        var undone = false
    }

    private let state: LoopBound<State>

    init(backend: AudioBackend, loop: DaemonLoop, journal: ChangeJournal, logger: Logger) {
        self.backend = backend
        self.journal = journal
        self.logger = logger
        state = LoopBound(State(), on: loop)
    }

    /// Forces what `choice` says; its nil fields go back to the server's own choice.
    func apply(_ choice: HardwareChoice) {
        guard !state.undone else { return }
        logger.info("hardware: \(choice)")
        journal.recordHardware(quantum: choice.quantum, sampleRate: choice.sampleRate)
        backend.forceQuantum(choice.quantum)
        backend.forceSampleRate(choice.sampleRate)
    }

    func stop() { state.undone = true }
}
