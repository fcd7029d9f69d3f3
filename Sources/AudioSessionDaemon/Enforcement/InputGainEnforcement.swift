import Logging
import SessionPolicy

/// Carries out the policy's input gains (`setInputGain`): an input device put at a session's
/// gain, and given back its user's volume after — when the policy says so, at exit, and at the
/// next start after a crash (the journal keeps the user's volume before anything is written).
///
/// The user's volume governs (``BorrowedValue``): a volume set after our gain was reported is
/// its user's, and it stays — nothing is written or given back over it; one set just before
/// our gain landed is the volume given back.
final class InputGainEnforcement: Sendable {
    /// A device's volume: on its control's scale (what is compared), and per channel as the
    /// server keeps it (what is given back).
    struct Level: Sendable {
        var volume: Double
        var channels: [Double] = []
    }

    private struct Applied {
        var name: String
        var gain: BorrowedValue<Level>
    }

    private unowned let backend: AudioBackend
    private let journal: ChangeJournal
    private let logger: Logger
    private struct State {
        var applied: [DeviceID: Applied] = [:]
        /// User's volumes given back whose write has not been reported yet, by device name: a gain
        /// applied again meanwhile must not take ours for the user's.
        var givenBack: [String: BorrowedValue<Level>] = [:]
        var undone = false
    }

    private let state: LoopBound<State>

    /// Within this, a reported volume is the one written (volume controls round).
    static let tolerance = 0.005

    private static let sameVolume: @Sendable (Level, Level) -> Bool = { abs($0.volume - $1.volume) < tolerance }

    init(backend: AudioBackend, loop: DaemonLoop, journal: ChangeJournal, logger: Logger) {
        self.backend = backend
        self.journal = journal
        self.logger = logger
        state = LoopBound(State(), on: loop)
    }

    /// Puts `device` at `gain`, or (nil) gives it back its user's volume.
    func apply(_ gain: Double?, to device: DeviceID) {
        guard !state.undone else { return }
        guard let gain else {
            giveBack(device)
            return
        }
        guard let name = backend.name(of: device), let current = backend.inputVolume(of: device),
            let levels = backend.inputChannelLevels(of: device)
        else {
            logger.warning("input gain \(gain) for \(device): the device has no volume control")
            return
        }
        let ours = Level(volume: gain)
        var entry: Applied
        if let earlier = state.applied[device]?.gain ?? state.givenBack.removeValue(forKey: name) {
            entry = Applied(name: name, gain: earlier)
        } else {
            // The device as last reported: already at the gain, it needs no write.
            entry = Applied(name: name, gain: BorrowedValue(users: Level(volume: current, channels: levels), ours: ours, matching: Self.sameVolume))
        }
        let written = abs(entry.gain.ours.volume - gain) < Self.tolerance && entry.gain.isOursReported
        // After a give-back not yet reported, the device's volume as we know it is our old gain:
        // it only looks applied. Written again, behind the give-back (the server applies writes
        // in order); the give-back's late report is then ours, no user's choice.
        if !written { entry.gain.write(ours) }
        state.applied[device] = entry
        record(entry)
        logger.info("\(device) '\(name)': input gain \(gain) (its user's: \(entry.gain.users.volume))")
        if !written { backend.writeInputVolume(gain, of: device) }
    }

    /// What the device reports: ours coming back, or its user's volume.
    func volumeReported(_ volume: Double?, of device: DeviceID) {
        if let volume, let name = backend.name(of: device), var earlier = state.givenBack[name] {
            // Once the user's volume is back (or its user set another since), what the device
            // says is true again.
            state.givenBack[name] = earlier.givingBackEnds(with: Level(volume: volume)) ? nil : earlier
        }
        guard var entry = state.applied[device] else { return }
        guard let volume else {
            // The device is gone, and our change with it.
            forget(device)
            return
        }
        switch entry.gain.reported(Level(volume: volume, channels: backend.inputChannelLevels(of: device) ?? [volume])) {
        case .ours, .usersStill:
            state.applied[device] = entry
        case .usersBeforeOurs:
            state.applied[device] = entry
            record(entry)
        case .usersAgain, .usersChange:
            logger.info("\(device) '\(entry.name)': its user set the input volume to \(volume); it stays")
            forget(device)
        }
    }

    /// Given back unless its user set a volume after our gain was reported (a session
    /// deactivated within the round trip of its activation's write gives it back too: its user
    /// could not have changed the volume since; the server applies our two writes in order).
    private func giveBack(_ device: DeviceID) {
        guard var entry = state.applied[device] else { return }
        forget(device)
        guard let current = backend.inputVolume(of: device), entry.gain.mayGiveBack(over: Level(volume: current)) else { return }
        let users = entry.gain.users
        logger.info("\(device) '\(entry.name)': input volume back to its user's \(users.volume)")
        backend.writeInputChannelLevels(users.channels, of: device)
        entry.gain.write(users)
        state.givenBack[entry.name] = entry.gain
    }

    private func record(_ entry: Applied) {
        let gain = entry.gain
        journal.recordInputGain(.init(original: gain.users.volume, originalLevels: gain.users.channels, written: gain.ours.volume), device: entry.name)
    }

    private func forget(_ device: DeviceID) {
        guard let entry = state.applied.removeValue(forKey: device) else { return }
        journal.recordInputGain(nil, device: entry.name)
    }

    /// The server is gone (our values may come back with its devices: the journal keeps them).
    func forgetAll() {
        state.applied.removeAll()
        state.givenBack.removeAll()
    }

    /// The daemon is exiting: every device still at a gain of ours gets its user's volume back
    /// (one whose write is still on its way too), and nothing more is written.
    func undo() {
        for device in state.applied.keys.sorted() { giveBack(device) }
        state.undone = true
    }

    /// Gives back what a journal says we changed (a crashed run, or the server before a restart
    /// whose session manager brought our value back), on the devices that still have it.
    func restore(_ entries: [String: EnforcementJournal.InputGainEntry]) {
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            var left = BorrowedValue(
                users: Level(volume: entry.original, channels: entry.originalLevels), ours: Level(volume: entry.written), matching: Self.sameVolume)
            guard let device = backend.device(named: name), device.direction == .input, let current = backend.inputVolume(of: device),
                left.isOurs(Level(volume: current))
            else { continue }
            logger.info("\(device) '\(name)': input volume back to its user's \(entry.original) (left at our gain \(entry.written))")
            backend.writeInputChannelLevels(entry.originalLevels, of: device)
            left.write(left.users)
            state.givenBack[name] = left
        }
    }
}
