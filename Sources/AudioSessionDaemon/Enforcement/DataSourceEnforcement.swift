import Logging
import SessionPolicy

/// Carries out the policy's data sources (`setInputDataSource`): a device's card switched to
/// the route a session chose, and given back the route it had — when the policy says so, at
/// exit, and at the next start after a crash (journalled before the switch).
///
/// The user's choice governs (``BorrowedValue``): a route picked in their mixer after ours
/// landed stays, and one picked just before ours landed is the one given back.
final class DataSourceEnforcement: Sendable {
    private struct Applied {
        var name: String
        var route: BorrowedValue<UInt32>
    }

    private unowned let backend: AudioBackend
    private let journal: ChangeJournal
    private let logger: Logger
    private struct State {
        var applied: [DeviceID: Applied] = [:]
        /// Routes given back whose switch has not been reported yet, by device name: a selection
        /// applied again meanwhile must not take our route for the one the card had.
        var givenBack: [String: BorrowedValue<UInt32>] = [:]
        var undone = false
    }

    private let state: LoopBound<State>

    init(backend: AudioBackend, loop: DaemonLoop, journal: ChangeJournal, logger: Logger) {
        self.backend = backend
        self.journal = journal
        self.logger = logger
        state = LoopBound(State(), on: loop)
    }

    /// Switches `device` to `source`, or (nil) gives it back the route it had.
    func apply(_ source: UInt32?, to device: DeviceID) {
        guard !state.undone else { return }
        guard let source else {
            giveBack(device)
            return
        }
        guard let name = backend.name(of: device), let current = backend.selectedDataSource(of: device) else {
            logger.warning("data source \(source) for \(device): the device has no routes")
            return
        }
        var entry: Applied
        if let earlier = state.applied[device]?.route ?? state.givenBack.removeValue(forKey: name) {
            entry = Applied(name: name, route: earlier)
            if earlier.ours != source { entry.route.write(source) }
        } else {
            entry = Applied(name: name, route: BorrowedValue(users: current, ours: source))
        }
        state.applied[device] = entry
        journal.recordDataSource(.init(original: entry.route.users, written: source), device: name)
        logger.info("\(device) '\(name)': data source \(source) (it had \(entry.route.users))")
        if current != source { backend.selectDataSource(source, of: device) }
    }

    /// Selects the route the card had again, unless its user chose another after ours landed.
    private func giveBack(_ device: DeviceID) {
        guard var entry = state.applied.removeValue(forKey: device) else { return }
        journal.recordDataSource(nil, device: entry.name)
        guard let current = backend.selectedDataSource(of: device) else { return }
        guard entry.route.mayGiveBack(over: current) else {
            logger.info("\(device): its user chose route \(current) since; it stays")
            return
        }
        logger.info("\(device): data source back to \(entry.route.users)")
        entry.route.write(entry.route.users)
        state.givenBack[entry.name] = entry.route
        backend.selectDataSource(entry.route.users, of: device)
    }

    /// What the card has active now: ours coming back, or its user's choice.
    func selectionReported(_ selected: UInt32?, of device: DeviceID) {
        guard let selected, let name = backend.name(of: device) else { return }
        if var route = state.givenBack[name] { state.givenBack[name] = route.givingBackEnds(with: selected) ? nil : route }
        guard var entry = state.applied[device] else { return }
        if entry.route.reported(selected) == .usersBeforeOurs {
            journal.recordDataSource(.init(original: entry.route.users, written: entry.route.ours), device: entry.name)
        }
        state.applied[device] = entry
    }

    /// The server is gone (our route may come back with its card: the journal keeps it).
    func forgetAll() {
        state.applied.removeAll()
        state.givenBack.removeAll()
    }

    /// The daemon is exiting: every card switched by us gets its route back; nothing more.
    func undo() {
        for device in state.applied.keys.sorted() { giveBack(device) }
        state.undone = true
    }

    /// Gives back what a journal says we switched, on the devices still at our route.
    func restore(_ entries: [String: EnforcementJournal.DataSourceEntry]) {
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            var route = BorrowedValue(users: entry.original, ours: entry.written)
            guard let device = backend.device(named: name), let current = backend.selectedDataSource(of: device), route.isOurs(current)
            else { continue }
            logger.info("\(device) '\(name)': card route back to \(entry.original) (left at our \(entry.written))")
            route.write(entry.original)
            state.givenBack[name] = route
            backend.selectDataSource(entry.original, of: device)
        }
    }
}
