#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PulseAudioServer
import SessionPolicy

/// The policy's default devices ("last in wins": a USB DAC plugged in takes over) carried out
/// on PulseAudio, where the default sink and source are the only defaults there are, and
/// PulseAudio moves every stream that follows the default when it changes.
///
/// The user's own default before our first change is journalled (with the server's cookie) and
/// set again at exit — and by the next run after a SIGKILL — unless the user chose another
/// after ours landed (``BorrowedValue``): theirs wins. Our own changes coming back from the
/// server are not reported as the user's.
final class DefaultDeviceChoice: Sendable {
    private let connection: PulseConnection
    private let file: JournalFile<ChosenDefaults>
    private let logger: Logger
    private struct State {
        var serverCookie: UInt32 = 0
        /// By device kind: the user's default and ours.
        var borrowed: [PulseDevice.Kind: BorrowedValue<String?>] = [:]
    }

    private let state: LoopBound<State>

    init(connection: PulseConnection, loop: DaemonLoop, stateDirectory: URL, logger: Logger) {
        self.connection = connection
        self.file = JournalFile(directory: stateDirectory, logger: logger)
        self.logger = logger
        state = LoopBound(State(), on: loop)
    }

    /// The server is seen: what a killed run set is set back first (same server instance only:
    /// a restarted server restored its own).
    func attach(in snapshot: PulseSnapshot) {
        let left = file.read()
        state.serverCookie = snapshot.server.cookie
        state.borrowed.removeAll()
        if left.serverCookie == snapshot.server.cookie {
            let kinds = left.entries.compactMap { key, entry in PulseDevice.Kind(rawValue: key).map { ($0, entry) } }
            putBack(Dictionary(uniqueKeysWithValues: kinds).mapValues { BorrowedValue.left(users: $0.usersChoice, ours: $0.ours) }, in: snapshot)
        }
        save()
    }

    func lost() {
        state.borrowed.removeAll()
        state.serverCookie = 0
    }

    /// Makes `name` the default sink or source (nothing when it is, or is on its way).
    func choose(_ name: String, _ kind: PulseDevice.Kind, in snapshot: PulseSnapshot) {
        let current = Self.current(kind, in: snapshot)
        if var entry = state.borrowed[kind] {
            guard entry.ours != name else { return }
            entry.write(name)
            state.borrowed[kind] = entry
        } else {
            guard current != name else { return }
            state.borrowed[kind] = BorrowedValue(users: current, ours: name)
        }
        save()  // before the server has it
        logger.info("pulse: the policy's default \(kind) is \(name) (was \(current ?? "none"))")
        connection.setDefault(kind, name: name)
    }

    /// The server's default is now `name`: whether it is the user's choice (not ours coming
    /// back). One the user made after ours landed stays theirs, at exit too.
    func reported(_ name: String?, _ kind: PulseDevice.Kind) -> Bool {
        guard var entry = state.borrowed[kind] else { return true }
        switch entry.reported(name) {
        case .ours, .usersStill:
            state.borrowed[kind] = entry
            return false
        case .usersBeforeOurs:
            state.borrowed[kind] = entry
            save()
            return true
        case .usersAgain, .usersChange:
            state.borrowed[kind] = nil
            save()
            return true
        }
    }

    /// The daemon is exiting: the user's defaults are set again where ours still stand.
    func restore(in snapshot: PulseSnapshot) {
        putBack(state.borrowed, in: snapshot)
        state.borrowed.removeAll()
        save()
    }

    private func putBack(_ chosen: [PulseDevice.Kind: BorrowedValue<String?>], in snapshot: PulseSnapshot) {
        for (kind, entry) in chosen.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let users = entry.users, snapshot.device(named: users, kind) != nil else { continue }
            let current = Self.current(kind, in: snapshot)
            // Not over a default the user chose after ours landed; over one still on its way,
            // yes (it would land after we are gone).
            guard entry.mayGiveBack(over: current) else { continue }
            logger.info("pulse: the default \(kind) is \(users) again, as its user had it")
            connection.setDefault(kind, name: users)
        }
    }

    private static func current(_ kind: PulseDevice.Kind, in snapshot: PulseSnapshot) -> String? {
        kind == .sink ? snapshot.server.defaultSinkName : snapshot.server.defaultSourceName
    }

    private func save() {
        var journal = ChosenDefaults(serverCookie: state.serverCookie)
        for (kind, entry) in state.borrowed { journal.entries[kind.rawValue] = .init(usersChoice: entry.users, ours: entry.ours ?? "") }
        file.write(journal)
    }
}

/// The defaults we set on the server, and what each was before.
struct ChosenDefaults: JournalContents {
    static let fileName = "pulseaudio-defaults.json"

    struct Entry: Codable, Equatable {
        /// The user's default before our first change.
        var usersChoice: String?
        /// The one we set last.
        var ours: String
    }

    var serverCookie: UInt32 = 0
    /// By device kind ("sink", "source").
    var entries: [String: Entry] = [:]

    var isEmpty: Bool { entries.isEmpty }

    init() {}

    init(serverCookie: UInt32) {
        self.serverCookie = serverCookie
    }
}
