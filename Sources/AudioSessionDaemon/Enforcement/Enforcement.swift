#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import SessionPolicy

/// Everything the daemon changes on the audio server, for every backend: gain
/// (``GainEnforcement``), holds and policy mutes (``HoldEnforcement``), the forced quantum and
/// rate (``HardwareEnforcement``), input devices' gains (``InputGainEnforcement``), cards' routes chosen as data sources
/// (``DataSourceEnforcement``), and the journal that undoes all of it — at exit, and at the
/// next start after a crash. The backend below only reads and writes raw values.
final class Enforcement: Sendable {
    let gain: GainEnforcement
    let holds: HoldEnforcement
    let hardware: HardwareEnforcement
    let inputGains: InputGainEnforcement
    let dataSources: DataSourceEnforcement
    let headsetProfiles: HeadsetProfileEnforcement
    private let journal: ChangeJournal
    private unowned let backend: AudioBackend
    private let loop: DaemonLoop
    private let logger: Logger
    private struct State {
        /// Whether the server is there (between `attached` and `lost`: there is something to undo),
        /// and whether it was before.
        var attachment = ServerAttachmentState.never
    }

    private let state: LoopBound<State>

    var attachment: ServerAttachmentState { state.attachment }
    var isAttached: Bool { state.attachment == .attached }
    /// Every delay between a decision and its last effect.
    let timing: EnforcementTiming

    init(backend: AudioBackend, loop: DaemonLoop, stateDirectory: URL, timing: EnforcementTiming, logger: Logger) {
        self.timing = timing
        self.backend = backend
        self.loop = loop
        self.logger = logger
        journal = ChangeJournal(directory: stateDirectory, loop: loop, logger: logger)
        gain = GainEnforcement(backend: backend, loop: loop, journal: journal, logger: logger, step: timing.rampStep)
        holds = HoldEnforcement(backend: backend, loop: loop, journal: journal)
        hardware = HardwareEnforcement(backend: backend, loop: loop, journal: journal, logger: logger)
        inputGains = InputGainEnforcement(backend: backend, loop: loop, journal: journal, logger: logger)
        dataSources = DataSourceEnforcement(backend: backend, loop: loop, journal: journal, logger: logger)
        headsetProfiles = HeadsetProfileEnforcement(backend: backend, loop: loop, journal: journal, logger: logger)
        state = LoopBound(State(), on: loop)
    }

    /// Brings one stream in line with its session's effects. The order is fixed here: off its
    /// device first, then muted, then its gain (silencing at once, ducks along the ramp).
    func apply(before: SessionEffects, after: SessionEffects, to stream: BackendStream, ramp: Duration) {
        loop.assertConfined("enforcement")
        if before.isHeld != after.isHeld { holds.setHeld(after.isHeld, stream.id) }
        if before.isMuted != after.isMuted { holds.setMuted(after.isMuted, stream.id) }
        let target = after.gain(for: stream.direction)
        if target != (gain.current[stream.id] ?? 1.0) {
            let immediate = before.silenced != after.silenced || before.captureSilenced != after.captureSilenced
            gain.ramp(stream.id, to: target, over: immediate ? .zero : ramp)
        }
    }

    /// A step's changes are all made: they are journalled now, before the loop sends them.
    func stepDone() { journal.saveIfPending() }

    // MARK: - The server's side

    /// The server is there: what a previous run (crashed, or killed with SIGKILL) left behind
    /// is undone before anything else happens.
    func attached() {
        state.attachment = .attached
        let leftovers = journal.readLeftovers()
        guard !leftovers.isEmpty else { return }
        logger.info("undoing what a previous run left behind (\(leftovers.streams.count) streams)")
        restore(leftovers)
        journal.forgetDeviceSettings()
        journal.saveNow()
    }

    /// The server went away; a new one has none of our stream changes: nothing to undo there.
    /// A device's volume or route is another matter: a session manager that saves them (the
    /// user's mixer settings) may bring ours back with the device, so those entries are kept
    /// and undone at the next attach if the device has our value again.
    func lost() {
        state.attachment = .lost
        gain.forgetAll()
        holds.forgetAll()
        inputGains.forgetAll()
        dataSources.forgetAll()
        headsetProfiles.forgetAll()
        journal.clearKeepingDeviceSettings()
    }

    func volumeReported(_ volume: Float, of stream: StreamID) { gain.volumeReported(volume, of: stream) }

    /// The stream's mute as the server reports it.
    func muteReported(_ muted: Bool?, of stream: StreamID) { holds.muteReported(muted, of: stream) }

    func streamRemoved(_ stream: StreamID) {
        gain.forget(stream)
        holds.forget(stream)
        journal.forget(stream)
    }

    // MARK: - Nothing left behind

    /// Undoes everything we changed: before exit (SIGTERM) the daemon leaves the server as the
    /// user had it, and changes nothing more.
    func undoAll() {
        loop.assertConfined("enforcement")
        guard isAttached else { return }
        gain.stop()
        holds.stop()
        hardware.stop()
        inputGains.undo()
        dataSources.undo()
        headsetProfiles.undo()
        restore(journal.contents)
        journal.clear()
    }

    private func restore(_ entries: EnforcementJournal) {
        for (key, entry) in entries.streams {
            // Matched by identity: the id may belong to another stream by now.
            guard let stream = EnforcementJournal.stream(ofKey: key), backend.identity(of: stream) == entry.serial else { continue }
            if let base = entry.baseVolume { backend.writeVolume(base, of: stream) }
            if entry.mutedByPolicy { backend.writeMute(false, of: stream) }
        }
        if let quantum = entries.forcedQuantum, backend.forcedQuantum == quantum { backend.forceQuantum(nil) }
        if let rate = entries.forcedRate, backend.forcedSampleRate == rate { backend.forceSampleRate(nil) }
        inputGains.restore(entries.inputGains ?? [:])
        dataSources.restore(entries.dataSources ?? [:])
        headsetProfiles.restore(entries.headsetProfiles ?? [:])
    }
}
