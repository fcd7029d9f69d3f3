import Logging
import SessionPolicy

/// Carries out the policy's headset profiles (a call on a Bluetooth headset): the headset
/// switched to its call profile, and given back the profile it had — when the policy says so, at
/// exit, and at the next start after a crash (journalled before the switch). Never saved as the
/// user's choice.
///
/// The user's choice governs: a profile the headset has that is neither ours nor the one it had
/// (the user picked another in their mixer) stays.
///
/// Confined to the daemon's loop.
final class HeadsetProfileEnforcement: @unchecked Sendable {
    private unowned let backend: AudioBackend
    private let journal: ChangeJournal
    private let logger: Logger
    /// By `Port.deviceID`.
    private var applied: [String: EnforcementJournal.ProfileEntry] = [:]
    private var undone = false

    init(backend: AudioBackend, journal: ChangeJournal, logger: Logger) {
        self.backend = backend
        self.journal = journal
        self.logger = logger
    }

    /// Switches the headset to `profile`, or (nil) gives it back the profile it had.
    func apply(_ profile: HeadsetProfile?, to device: String) {
        guard !undone else { return }
        guard let profile else { return giveBack(device) }
        guard let current = backend.activeProfile(ofHeadset: device), let index = backend.profileIndex(profile, ofHeadset: device) else {
            logger.warning("\(device): no \(profile.wireName) profile to switch to")
            return
        }
        // Asked again: someone else switched it away, and the device's params may not say so yet.
        let again = applied[device]?.written == index
        let entry = EnforcementJournal.ProfileEntry(original: applied[device]?.original ?? current, written: index)
        applied[device] = entry
        journal.recordHeadsetProfile(entry, device: device)
        logger.info("\(device): \(profile.wireName) profile \(index) (it had \(entry.original))\(again ? ", again" : "")")
        if current != index || again { backend.selectProfile(index, ofHeadset: device) }
    }

    /// Someone else keeps switching the headset: it is theirs, with nothing to give back.
    func yield(_ device: String) {
        guard applied.removeValue(forKey: device) != nil else { return }
        journal.recordHeadsetProfile(nil, device: device)
    }

    /// Selects the profile the headset had again, unless its user chose another since.
    private func giveBack(_ device: String) {
        guard let entry = applied.removeValue(forKey: device) else { return }
        journal.recordHeadsetProfile(nil, device: device)
        guard let current = backend.activeProfile(ofHeadset: device) else { return }
        guard entry.isOursOrOnItsWayBack(current) else {
            logger.info("\(device): its user chose profile \(current) since; it stays")
            return
        }
        logger.info("\(device): profile back to \(entry.original)")
        // Asked even when it seems to have it already: the server can answer a stale `Profile`
        // (``HeadsetReading``), and a device asked for the profile it has does nothing (bluez5
        // leaves it alone).
        backend.selectProfile(entry.original, ofHeadset: device)
    }

    /// The server is gone (a headset comes back with its own profile; the journal keeps ours).
    func forgetAll() {
        applied.removeAll()
    }

    /// The daemon is exiting: every headset switched by us gets its profile back.
    func undo() {
        for device in applied.keys.sorted() { giveBack(device) }
        undone = true
    }

    /// Gives back what a journal says we switched, on the headsets still at our profile.
    func restore(_ entries: [String: EnforcementJournal.ProfileEntry]) {
        for (device, entry) in entries.sorted(by: { $0.key < $1.key }) where entry.isOurs(backend.activeProfile(ofHeadset: device)) {
            logger.info("\(device): profile back to \(entry.original) (left at our \(entry.written))")
            backend.selectProfile(entry.original, ofHeadset: device)
        }
    }
}
