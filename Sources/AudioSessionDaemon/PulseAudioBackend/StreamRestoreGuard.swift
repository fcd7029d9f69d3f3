#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PulseAudioServer
import SessionPolicy

/// Keeps `module-stream-restore`'s database as its user had it. PulseAudio saves every
/// volume, mute and move a client makes to a stream into the stream's record (by role or app):
/// a duck, a policy mute or a hold would otherwise become what the next stream of that app
/// starts with.
///
/// Before our first change to a stream, its record is read (the read goes out before the
/// change, and the server answers in order) and journalled; when the last stream we changed of
/// that record is gone, and at exit, the record is written back as it was (or deleted, if it
/// did not exist). A change its user makes (a volume we did not write) is theirs to keep: the
/// record is no longer ours to put back. The database outlives the server (PulseAudio keeps
/// it on disk): after a SIGKILL of the daemon, or a restart of the server, what the journal
/// holds is written back as soon as the server is seen.
///
/// A record written back is still ours for a moment: a stream the app opened again at once
/// (TiMidity++ opens its ALSA device twice, 10 ms apart) can be created from our change before
/// the write lands, and PulseAudio may announce it only after answering what we sent after the
/// write. So every stream is read again after the write, and one of that record that comes
/// before the answer is corrected like one that appears while a stream of its record is
/// changed (`recordBeforeOurChanges`).
final class StreamRestoreGuard: Sendable {
    static let recordKey = "module-stream-restore.id"

    private let connection: PulseConnection
    private let file: JournalFile<StreamRestoreJournal>
    private let logger: Logger
    private struct State {
        var journal = StreamRestoreJournal()
        /// Streams we changed, by the record they save into.
        var touched: [String: Set<StreamID>] = [:]
        /// Records touched since the read in flight was sent (it answers for them).
        var awaitingRead: Set<String> = []
        var readInFlight = false
        /// The server has no stream-restore module: nothing to keep.
        var unavailable = false
        /// Streams that appeared while their record's read was in flight: corrected when it returns.
        var appearedDuringRead: [String: [StreamID]] = [:]
        /// Records written back whose streams may still come from our change, with the write's
        /// turn (a record put back again later is not released by the earlier write's round trips).
        var puttingBack: [String: (record: StreamRestoreJournal.Record, turn: Int)] = [:]
        var putBackTurns = 0
    }

    private let state: LoopBound<State>
    /// Gives a new stream the record's values from before our changes (the backend's).
    let correctNewStream = WiredOnce<@Sendable (StreamID) -> Void>(fallback: { _ in })

    init(connection: PulseConnection, loop: DaemonLoop, stateDirectory: URL, logger: Logger) {
        self.connection = connection
        self.file = JournalFile(directory: stateDirectory, logger: logger)
        self.logger = logger
        state = LoopBound(State(), on: loop)
    }

    /// The server is seen: what a killed run left changed is put back first.
    func attach(in snapshot: PulseSnapshot) {
        let left = file.read()
        state.touched.removeAll()
        state.awaitingRead.removeAll()
        state.readInFlight = false
        state.unavailable = false
        let records = left.records.merging(state.journal.records) { earlier, _ in earlier }
        if !records.isEmpty {
            logger.info("pulse: putting back \(records.count) stream-restore records changed before the server was last seen")
            put(back: records)
        }
        state.journal = StreamRestoreJournal()
        file.write(state.journal)
    }

    /// The server is gone; its database is on disk with our changes in it: they are put back
    /// when it is seen again.
    func lost() {
        state.appearedDuringRead.removeAll()
        state.puttingBack.removeAll()
        state.touched.removeAll()
        state.awaitingRead.removeAll()
        state.readInFlight = false
    }

    /// We are about to change `stream` (volume, mute, device).
    func willChange(_ stream: PulseStream) {
        guard !state.unavailable, let name = stream.properties[Self.recordKey] else { return }
        state.touched[name, default: []].insert(PulseAudioBackend.id(of: stream))
        guard state.journal.records[name] == nil, !state.awaitingRead.contains(name) else { return }
        if let putBack = state.puttingBack[name] {
            // Put back a moment ago: what we wrote is the record as its user had it. A read now
            // could answer with our own changes: the server saves a stream's volume into its
            // record from a deferred event, after answering what came next (TiMidity++'s second
            // PCM, created from our silence, then corrected: the read said 0).
            state.journal.records[name] = putBack.record
            file.write(state.journal)
            return
        }
        state.awaitingRead.insert(name)
        guard !state.readInFlight else { return }
        state.readInFlight = true
        connection.readStreamRestore { [weak self] entries in self?.read(entries) }
    }

    private func read(_ entries: [String: StreamRestoreEntry]?) {
        state.readInFlight = false
        let names = state.awaitingRead
        state.awaitingRead.removeAll()
        guard let entries else {
            state.unavailable = true
            logger.debug("pulse: no module-stream-restore: nothing to keep")
            return
        }
        for name in names where state.journal.records[name] == nil {
            state.journal.records[name] = StreamRestoreJournal.Record(before: entries[name])
            logger.debug("pulse: stream-restore record '\(name)' before our changes: \(Self.describe(entries[name]))")
        }
        file.write(state.journal)
        for name in names {
            for id in state.appearedDuringRead.removeValue(forKey: name) ?? [] { correctNewStream.value(id) }
        }
        for name in names where state.touched[name]?.isEmpty ?? true { putBack(name) }  // its streams went meanwhile
    }

    /// What a new stream should have started with, when its record carries a change of ours
    /// (another stream of the same role or app is ducked, silenced or held): the record as it
    /// was. Nil when the record is not ours to correct.
    func recordBeforeOurChanges(for stream: PulseStream) -> StreamRestoreJournal.Record? {
        guard let name = stream.properties[Self.recordKey] else { return nil }
        if state.awaitingRead.contains(name) {
            state.appearedDuringRead[name, default: []].append(PulseAudioBackend.id(of: stream))  // known once the read returns
            return nil
        }
        return state.journal.records[name] ?? state.puttingBack[name]?.record
    }

    /// Its user set the stream's volume or mute: the record holds their choice now.
    func userChanged(_ stream: PulseStream) {
        guard let name = stream.properties[Self.recordKey], state.journal.records.removeValue(forKey: name) != nil else { return }
        state.touched[name] = nil
        file.write(state.journal)
    }

    func streamGone(_ stream: PulseStream) {
        guard let name = stream.properties[Self.recordKey], var streams = state.touched[name] else { return }
        streams.remove(PulseAudioBackend.id(of: stream))
        state.touched[name] = streams.isEmpty ? nil : streams
        if streams.isEmpty, !state.awaitingRead.contains(name) { putBack(name) }
    }

    private func putBack(_ name: String) {
        guard let record = state.journal.records.removeValue(forKey: name) else { return }
        logger.debug("pulse: stream-restore record '\(name)' put back: \(Self.describe(record.before))")
        put(back: [name: record])
        file.write(state.journal)
        state.putBackTurns += 1
        let turn = state.putBackTurns
        state.puttingBack[name] = (record, turn)
        connection.refreshStreams { [weak self] in
            guard let self, state.puttingBack[name]?.turn == turn else { return }
            state.puttingBack[name] = nil
        }
    }

    /// The daemon is exiting: every record is as it was.
    func restoreAll() {
        put(back: state.journal.records)
        state.journal.records.removeAll()
        state.touched.removeAll()
        file.write(state.journal)
    }

    static func describe(_ entry: StreamRestoreEntry?) -> String {
        entry.map { "volume \($0.volume) muted \($0.muted)" } ?? "none (deleted)"
    }

    private func put(back records: [String: StreamRestoreJournal.Record]) {
        connection.writeStreamRestore(records.values.compactMap(\.before).sorted { $0.name < $1.name })
        connection.deleteStreamRestore(records.filter { $0.value.before == nil }.keys.sorted())
    }
}

/// The stream-restore records as they were before we changed streams of theirs.
struct StreamRestoreJournal: JournalContents {
    static let fileName = "pulseaudio-stream-restore.json"

    struct Record: Codable, Equatable {
        /// Nil: there was no record.
        var before: StreamRestoreEntry?
    }

    var records: [String: Record] = [:]

    var isEmpty: Bool { records.isEmpty }

    init() {}
}
