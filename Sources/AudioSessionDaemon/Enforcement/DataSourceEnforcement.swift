import Logging
import SessionPolicy

/// Carries out the policy's data sources (`setInputDataSource`): a device's card switched to
/// the route a session chose, and given back the route it had — when the policy says so, at
/// exit, and at the next start after a crash (journalled before the switch).
///
/// The user's choice governs: a route the card has that is neither ours nor the one it had (the
/// user picked another port in their mixer) stays.
///
/// Confined to the daemon's loop.
final class DataSourceEnforcement: @unchecked Sendable {
    private struct Applied {
        var name: String
        var selection: EnforcementJournal.DataSourceEntry
    }

    private unowned let backend: AudioBackend
    private let journal: ChangeJournal
    private let logger: Logger
    private var applied: [DeviceID: Applied] = [:]
    /// Routes given back by ``restore(_:)``, by device name, until a selection is applied again
    /// (which must not take our route for the one the card had).
    private var givenBack: [String: UInt32] = [:]
    private var undone = false

    init(backend: AudioBackend, journal: ChangeJournal, logger: Logger) {
        self.backend = backend
        self.journal = journal
        self.logger = logger
    }

    /// Switches `device` to `source`, or (nil) gives it back the route it had.
    func apply(_ source: UInt32?, to device: DeviceID) {
        guard !undone else { return }
        guard let source else {
            giveBack(device)
            return
        }
        guard let name = backend.name(of: device), let current = backend.selectedDataSource(of: device) else {
            logger.warning("data source \(source) for \(device): the device has no routes")
            return
        }
        let earlier = givenBack.removeValue(forKey: name)
        var entry = applied[device] ?? Applied(name: name, selection: .init(original: earlier ?? current, written: source))
        entry.selection.written = source
        applied[device] = entry
        journal.recordDataSource(entry.selection, device: name)
        logger.info("\(device) '\(name)': data source \(source) (it had \(entry.selection.original))")
        if current != source { backend.selectDataSource(source, of: device) }
    }

    /// Selects the route the card had again, unless it has one that is neither ours nor that
    /// (its user chose it); one still on its way counts as ours: the switch back is sent after it.
    private func giveBack(_ device: DeviceID) {
        guard let entry = applied.removeValue(forKey: device) else { return }
        journal.recordDataSource(nil, device: entry.name)
        guard let current = backend.selectedDataSource(of: device) else { return }
        guard entry.selection.isOursOrOnItsWayBack(current) else {
            logger.info("\(device): its user chose route \(current) since; it stays")
            return
        }
        logger.info("\(device): data source back to \(entry.selection.original)")
        backend.selectDataSource(entry.selection.original, of: device)
    }

    /// What the card has active now: once it is the route given back, the card says true again.
    func selectionReported(_ selected: UInt32?, of device: DeviceID) {
        guard let name = backend.name(of: device), let earlier = givenBack[name], selected == earlier else { return }
        givenBack[name] = nil
    }

    /// The server is gone (our route may come back with its card: the journal keeps it).
    func forgetAll() {
        applied.removeAll()
        givenBack.removeAll()
    }

    /// The daemon is exiting: every card switched by us gets its route back; nothing more.
    func undo() {
        for device in applied.keys.sorted() { giveBack(device) }
        undone = true
    }

    /// Gives back what a journal says we switched, on the devices still at our route.
    func restore(_ entries: [String: EnforcementJournal.DataSourceEntry]) {
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard let device = backend.device(named: name), entry.isOurs(backend.selectedDataSource(of: device)) else { continue }
            logger.info("\(device) '\(name)': card route back to \(entry.original) (left at our \(entry.written))")
            backend.selectDataSource(entry.original, of: device)
            givenBack[name] = entry.original
        }
    }
}
