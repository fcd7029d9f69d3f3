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
///
/// Confined to the connection's loop thread.
final class StreamRestoreGuard: @unchecked Sendable {
    static let recordKey = "module-stream-restore.id"

    private let connection: PulseConnection
    private let file: JournalFile<StreamRestoreJournal>
    private let logger: Logger
    private var journal = StreamRestoreJournal()
    /// Streams we changed, by the record they save into.
    private var touched: [String: Set<StreamID>] = [:]
    /// Records touched since the read in flight was sent (it answers for them).
    private var awaitingRead: Set<String> = []
    private var readInFlight = false
    /// The server has no stream-restore module: nothing to keep.
    private var unavailable = false
    /// Streams that appeared while their record's read was in flight: corrected when it returns.
    private var appearedDuringRead: [String: [StreamID]] = [:]
    /// Records written back whose streams may still come from our change, with the write's
    /// turn (a record put back again later is not released by the earlier write's round trips).
    private var puttingBack: [String: (record: StreamRestoreJournal.Record, turn: Int)] = [:]
    private var putBackTurns = 0
    /// Gives a new stream the record's values from before our changes (the backend's).
    var correctNewStream: (StreamID) -> Void = { _ in }

    init(connection: PulseConnection, stateDirectory: URL, logger: Logger) {
        self.connection = connection
        self.file = JournalFile(directory: stateDirectory, logger: logger)
        self.logger = logger
    }

    /// The server is seen: what a killed run left changed is put back first.
    func attach(in snapshot: PulseSnapshot) {
        let left = file.read()
        touched.removeAll()
        awaitingRead.removeAll()
        readInFlight = false
        unavailable = false
        let records = left.records.merging(journal.records) { earlier, _ in earlier }
        if !records.isEmpty {
            logger.info("pulse: putting back \(records.count) stream-restore records changed before the server was last seen")
            put(back: records)
        }
        journal = StreamRestoreJournal()
        file.write(journal)
    }

    /// The server is gone; its database is on disk with our changes in it: they are put back
    /// when it is seen again.
    func lost() {
        appearedDuringRead.removeAll()
        puttingBack.removeAll()
        touched.removeAll()
        awaitingRead.removeAll()
        readInFlight = false
    }

    /// We are about to change `stream` (volume, mute, device).
    func willChange(_ stream: PulseStream) {
        guard !unavailable, let name = stream.properties[Self.recordKey] else { return }
        touched[name, default: []].insert(PulseAudioBackend.id(of: stream))
        guard journal.records[name] == nil, !awaitingRead.contains(name) else { return }
        if let putBack = puttingBack[name] {
            // Put back a moment ago: what we wrote is the record as its user had it. A read now
            // could answer with our own changes: the server saves a stream's volume into its
            // record from a deferred event, after answering what came next (TiMidity++'s second
            // PCM, created from our silence, then corrected: the read said 0).
            journal.records[name] = putBack.record
            file.write(journal)
            return
        }
        awaitingRead.insert(name)
        guard !readInFlight else { return }
        readInFlight = true
        connection.readStreamRestore { [weak self] entries in self?.read(entries) }
    }

    private func read(_ entries: [String: StreamRestoreEntry]?) {
        readInFlight = false
        let names = awaitingRead
        awaitingRead.removeAll()
        guard let entries else {
            unavailable = true
            logger.debug("pulse: no module-stream-restore: nothing to keep")
            return
        }
        for name in names where journal.records[name] == nil {
            journal.records[name] = StreamRestoreJournal.Record(before: entries[name])
            logger.debug("pulse: stream-restore record '\(name)' before our changes: \(Self.describe(entries[name]))")
        }
        file.write(journal)
        for name in names {
            for id in appearedDuringRead.removeValue(forKey: name) ?? [] { correctNewStream(id) }
        }
        for name in names where touched[name]?.isEmpty ?? true { putBack(name) }  // its streams went meanwhile
    }

    /// What a new stream should have started with, when its record carries a change of ours
    /// (another stream of the same role or app is ducked, silenced or held): the record as it
    /// was. Nil when the record is not ours to correct.
    func recordBeforeOurChanges(for stream: PulseStream) -> StreamRestoreJournal.Record? {
        guard let name = stream.properties[Self.recordKey] else { return nil }
        if awaitingRead.contains(name) {
            appearedDuringRead[name, default: []].append(PulseAudioBackend.id(of: stream))  // known once the read returns
            return nil
        }
        return journal.records[name] ?? puttingBack[name]?.record
    }

    /// Its user set the stream's volume or mute: the record holds their choice now.
    func userChanged(_ stream: PulseStream) {
        guard let name = stream.properties[Self.recordKey], journal.records.removeValue(forKey: name) != nil else { return }
        touched[name] = nil
        file.write(journal)
    }

    func streamGone(_ stream: PulseStream) {
        guard let name = stream.properties[Self.recordKey], var streams = touched[name] else { return }
        streams.remove(PulseAudioBackend.id(of: stream))
        touched[name] = streams.isEmpty ? nil : streams
        if streams.isEmpty, !awaitingRead.contains(name) { putBack(name) }
    }

    private func putBack(_ name: String) {
        guard let record = journal.records.removeValue(forKey: name) else { return }
        logger.debug("pulse: stream-restore record '\(name)' put back: \(Self.describe(record.before))")
        put(back: [name: record])
        file.write(journal)
        putBackTurns += 1
        let turn = putBackTurns
        puttingBack[name] = (record, turn)
        connection.refreshStreams { [weak self] in
            guard let self, self.puttingBack[name]?.turn == turn else { return }
            self.puttingBack[name] = nil
        }
    }

    /// The daemon is exiting: every record is as it was.
    func restoreAll() {
        put(back: journal.records)
        journal.records.removeAll()
        touched.removeAll()
        file.write(journal)
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
