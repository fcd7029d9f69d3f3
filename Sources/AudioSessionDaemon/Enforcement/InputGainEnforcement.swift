import Logging
import SessionPolicy

/// Carries out the policy's input gains (`setInputGain`): an input device put at a session's
/// gain, and given back its user's volume after — when the policy says so, at exit, and at the
/// next start after a crash (the journal keeps the user's volume before anything is written).
///
/// The user's volume governs: once the device has reported the gain we wrote, any other value
/// it reports is its user's, and that one stays — nothing is written or given back over it.
///
/// Confined to the daemon's loop.
final class InputGainEnforcement: @unchecked Sendable {
    private struct Applied {
        var name: String
        var original: Double
        var originalLevels: [Double]
        var written: Double
        /// The device reported `written`: a later different value is its user's.
        var settled = false
    }

    private unowned let backend: AudioBackend
    private let journal: ChangeJournal
    private let logger: Logger
    private var applied: [DeviceID: Applied] = [:]
    /// User's volumes given back by ``restore(_:)`` whose write may not have landed yet, by
    /// device name: a gain applied again meanwhile must not take ours for the user's.
    private var givenBack: [String: EnforcementJournal.InputGainEntry] = [:]
    private var undone = false

    /// Within this, a reported volume is the one written (volume controls round).
    static let tolerance = 0.005

    init(backend: AudioBackend, journal: ChangeJournal, logger: Logger) {
        self.backend = backend
        self.journal = journal
        self.logger = logger
    }

    /// Puts `device` at `gain`, or (nil) gives it back its user's volume.
    func apply(_ gain: Double?, to device: DeviceID) {
        guard !undone else { return }
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
        let earlier = givenBack.removeValue(forKey: name)
        var entry = applied[device] ?? Applied(
            name: name, original: earlier?.original ?? current, originalLevels: earlier?.originalLevels ?? levels, written: gain)
        entry.written = gain
        // After a give-back not yet reported, the device's volume as we know it is our old gain:
        // it only looks applied. Written again, behind the give-back (the server applies writes
        // in order); the give-back's late report is then no user's choice.
        entry.settled = earlier == nil && abs(current - gain) < Self.tolerance
        applied[device] = entry
        journal.recordInputGain(.init(original: entry.original, originalLevels: entry.originalLevels, written: gain), device: name)
        logger.info("\(device) '\(name)': input gain \(gain) (its user's: \(entry.original))")
        if !entry.settled { backend.writeInputVolume(gain, of: device) }
    }

    /// What the device reports: ours once it matches what we wrote; after that, its user's.
    func volumeReported(_ volume: Double?, of device: DeviceID) {
        if let volume, let name = backend.name(of: device), let earlier = givenBack[name], abs(volume - earlier.written) >= Self.tolerance {
            // The user's volume is back (or its user has set another since): what the device
            // says is true again. Our gain, reported late, changes nothing.
            givenBack[name] = nil
        }
        guard var entry = applied[device] else { return }
        guard let volume else {
            // The device is gone, and our change with it.
            forget(device)
            return
        }
        if abs(volume - entry.written) < Self.tolerance {
            entry.settled = true
            applied[device] = entry
        } else if entry.settled {
            logger.info("\(device) '\(entry.name)': its user set the input volume to \(volume); it stays")
            forget(device)
        }
    }

    /// Given back when the device still has our gain, or has not reported it yet: a session
    /// deactivated within the round trip of its activation's write (its user could not have
    /// changed the volume since; the server applies our two writes in order).
    private func giveBack(_ device: DeviceID) {
        guard let entry = applied[device] else { return }
        forget(device)
        let current = backend.inputVolume(of: device)
        guard !entry.settled || current.map({ abs($0 - entry.written) < Self.tolerance }) == true else { return }
        logger.info("\(device) '\(entry.name)': input volume back to its user's \(entry.original)")
        backend.writeInputChannelLevels(entry.originalLevels, of: device)
        givenBack[entry.name] = .init(original: entry.original, originalLevels: entry.originalLevels, written: entry.written)
    }

    private func forget(_ device: DeviceID) {
        guard let entry = applied.removeValue(forKey: device) else { return }
        journal.recordInputGain(nil, device: entry.name)
    }

    /// The server is gone (our values may come back with its devices: the journal keeps them).
    func forgetAll() {
        applied.removeAll()
        givenBack.removeAll()
    }

    /// The daemon is exiting: every device still at a gain of ours gets its user's volume back
    /// (one whose write is still on its way too: it has not reported it yet, and its user could
    /// not have changed it since), and nothing more is written.
    func undo() {
        for (device, entry) in applied.sorted(by: { $0.key < $1.key }) {
            let current = backend.inputVolume(of: device)
            if !entry.settled || current.map({ abs($0 - entry.written) < Self.tolerance }) == true {
                backend.writeInputChannelLevels(entry.originalLevels, of: device)
            }
            forget(device)
        }
        undone = true
    }

    /// Gives back what a journal says we changed (a crashed run, or the server before a restart
    /// whose session manager brought our value back), on the devices that still have it.
    func restore(_ entries: [String: EnforcementJournal.InputGainEntry]) {
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard let device = backend.device(named: name), device.direction == .input, let current = backend.inputVolume(of: device),
                abs(current - entry.written) < Self.tolerance
            else { continue }
            logger.info("\(device) '\(name)': input volume back to its user's \(entry.original) (left at our gain \(entry.written))")
            backend.writeInputChannelLevels(entry.originalLevels, of: device)
            givenBack[name] = entry
        }
    }
}
