#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PulseAudioServer

/// The policy's default devices ("last in wins": a USB DAC plugged in takes over) carried out
/// on PulseAudio, where the default sink and source are the only defaults there are, and
/// PulseAudio moves every stream that follows the default when it changes.
///
/// The user's own default before our first change is journalled (with the server's cookie) and
/// set again at exit — and by the next run after a SIGKILL — unless the user chose another
/// since: a default the server reports that we did not set is the user's, and theirs wins.
/// Our own changes coming back from the server are not reported as the user's.
///
/// Confined to the connection's loop thread.
final class DefaultDeviceChoice: @unchecked Sendable {
    private let connection: PulseConnection
    private let file: JournalFile<ChosenDefaults>
    private let logger: Logger
    private var journal = ChosenDefaults()

    init(connection: PulseConnection, stateDirectory: URL, logger: Logger) {
        self.connection = connection
        self.file = JournalFile(directory: stateDirectory, logger: logger)
        self.logger = logger
    }

    /// The server is seen: what a killed run set is set back first (same server instance only:
    /// a restarted server restored its own).
    func attach(in snapshot: PulseSnapshot) {
        let left = file.read()
        journal = ChosenDefaults(serverCookie: snapshot.server.cookie)
        if left.serverCookie == snapshot.server.cookie, !left.isEmpty {
            putBack(left, in: snapshot)
        }
        file.write(journal)
    }

    func lost() { journal = ChosenDefaults() }

    /// Makes `name` the default sink or source (nothing when it is already).
    func choose(_ name: String, _ kind: PulseDevice.Kind, in snapshot: PulseSnapshot) {
        let current = kind == .sink ? snapshot.server.defaultSinkName : snapshot.server.defaultSourceName
        guard current != name else { return }
        var entry = journal.entries[kind.rawValue] ?? ChosenDefaults.Entry(usersChoice: current, ours: name)
        entry.ours = name
        journal.entries[kind.rawValue] = entry
        file.write(journal)  // before the server has it
        logger.info("pulse: the policy's default \(kind) is \(name) (was \(current ?? "none"))")
        connection.setDefault(kind, name: name)
    }

    /// Whether the server's new default is the one we set (our change coming back).
    func isOurs(_ name: String?, _ kind: PulseDevice.Kind) -> Bool {
        guard let name, let entry = journal.entries[kind.rawValue] else { return false }
        return entry.ours == name
    }

    /// The user chose a default themselves: it stays theirs, at exit too.
    func usersChoice(_ kind: PulseDevice.Kind) {
        guard journal.entries.removeValue(forKey: kind.rawValue) != nil else { return }
        file.write(journal)
    }

    /// The daemon is exiting: the user's defaults are set again where ours still stand.
    func restore(in snapshot: PulseSnapshot) {
        putBack(journal, in: snapshot)
        journal.entries.removeAll()
        file.write(journal)
    }

    private func putBack(_ chosen: ChosenDefaults, in snapshot: PulseSnapshot) {
        for (key, entry) in chosen.entries.sorted(by: { $0.key < $1.key }) {
            guard let kind = PulseDevice.Kind(rawValue: key), let users = entry.usersChoice,
                snapshot.device(named: users, kind) != nil
            else { continue }
            let current = kind == .sink ? snapshot.server.defaultSinkName : snapshot.server.defaultSourceName
            // Ours, or still the user's because ours is on its way (sent, not reported back yet:
            // it would land after we are gone). Anything else the user chose since: it stays.
            guard current == entry.ours || current == users else { continue }
            logger.info("pulse: the default \(kind) is \(users) again, as its user had it")
            connection.setDefault(kind, name: users)
        }
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
