import Logging
import SessionPolicy

/// Carries out the policy's headset profiles (a call on a Bluetooth headset): the headset
/// switched to its call profile, and given back the profile it had — when the policy says so, at
/// exit, and at the next start after a crash (journalled before the switch). Never saved as the
/// user's choice.
///
/// The user's choice governs (``BorrowedValue``): a profile picked in their mixer after ours
/// landed stays, and one picked just before ours landed is the one given back.
final class HeadsetProfileEnforcement: Sendable {
    private unowned let backend: AudioBackend
    private let journal: ChangeJournal
    private let logger: Logger
    private struct State {
        /// By `Port.deviceID`: `EnumProfile` indices.
        var applied: [String: BorrowedValue<Int>] = [:]
        var undone = false
    }

    private let state: LoopBound<State>

    init(backend: AudioBackend, loop: DaemonLoop, journal: ChangeJournal, logger: Logger) {
        self.backend = backend
        self.journal = journal
        self.logger = logger
        state = LoopBound(State(), on: loop)
    }

    /// Switches the headset to `profile`, or (nil) gives it back the profile it had.
    func apply(_ profile: HeadsetProfile?, to device: String) {
        guard !state.undone else { return }
        guard let profile else { return giveBack(device) }
        guard let current = backend.activeProfile(ofHeadset: device), let index = backend.profileIndex(profile, ofHeadset: device) else {
            logger.warning("\(device): no \(profile.wireName) profile to switch to")
            return
        }
        // Asked again: someone else switched it away, and the device's params may not say so yet.
        let again = state.applied[device]?.ours == index
        var entry = state.applied[device] ?? BorrowedValue(users: current, ours: index)
        if state.applied[device] != nil { entry.write(index) }
        state.applied[device] = entry
        record(entry, device)
        logger.info("\(device): \(profile.wireName) profile \(index) (it had \(entry.users))\(again ? ", again" : "")")
        if current != index || again { backend.selectProfile(index, ofHeadset: device) }
    }

    /// The headset's active profile, as the server reports it: ours coming back, or its user's.
    func profileReported(_ index: Int?, of device: String) {
        guard let index, var entry = state.applied[device] else { return }
        if entry.reported(index) == .usersBeforeOurs { record(entry, device) }
        state.applied[device] = entry
    }

    /// Someone else keeps switching the headset: it is theirs, with nothing to give back.
    func yield(_ device: String) {
        guard state.applied.removeValue(forKey: device) != nil else { return }
        journal.recordHeadsetProfile(nil, device: device)
    }

    /// Selects the profile the headset had again, unless its user chose another after ours.
    private func giveBack(_ device: String) {
        guard let entry = state.applied.removeValue(forKey: device) else { return }
        journal.recordHeadsetProfile(nil, device: device)
        guard let current = backend.activeProfile(ofHeadset: device) else { return }
        guard entry.mayGiveBack(over: current) else {
            logger.info("\(device): its user chose profile \(current) since; it stays")
            return
        }
        logger.info("\(device): profile back to \(entry.users)")
        // Asked even when it seems to have it already: the server can answer a stale `Profile`
        // (``HeadsetReading``), and a device asked for the profile it has does nothing (bluez5
        // leaves it alone).
        backend.selectProfile(entry.users, ofHeadset: device)
    }

    private func record(_ entry: BorrowedValue<Int>, _ device: String) {
        journal.recordHeadsetProfile(.init(original: entry.users, written: entry.ours), device: device)
    }

    /// The server is gone (a headset comes back with its own profile; the journal keeps ours).
    func forgetAll() {
        state.applied.removeAll()
    }

    /// The daemon is exiting: every headset switched by us gets its profile back.
    func undo() {
        for device in state.applied.keys.sorted() { giveBack(device) }
        state.undone = true
    }

    /// Gives back what a journal says we switched, on the headsets still at our profile.
    func restore(_ entries: [String: EnforcementJournal.ProfileEntry]) {
        for (device, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard let current = backend.activeProfile(ofHeadset: device), BorrowedValue(users: entry.original, ours: entry.written).isOurs(current)
            else { continue }
            logger.info("\(device): profile back to \(entry.original) (left at our \(entry.written))")
            backend.selectProfile(entry.original, ofHeadset: device)
        }
    }
}
