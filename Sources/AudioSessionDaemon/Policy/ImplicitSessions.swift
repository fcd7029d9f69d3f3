import SessionPolicy

/// The daemon's book of implicit sessions: which streams exist, which session each belongs
/// to, and what the engine has been told about each stream.
///
/// An implicit session is one per app connection *and classification*: a browser that plays
/// music and a notification sound has two sessions, so the notification can duck the music
/// of its own app like anyone else's.
struct ImplicitSessions {
    struct Key: Hashable {
        var client: UInt32
        var classification: Classification
    }

    struct StreamRecord {
        var stream: BackendStream
        var session: SessionID
        /// The engine was told this stream runs (`streamStarted`), and not since that it stopped.
        var reportedActive: Bool
    }

    private(set) var streams: [UInt32: StreamRecord] = [:]
    private(set) var sessionStreams: [SessionID: Set<UInt32>] = [:]
    private(set) var keys: [SessionID: Key] = [:]
    private var sessionsByKey: [Key: SessionID] = [:]
    private var nextSession: UInt64

    /// Session ids of implicit sessions start high so they never collide with explicit ones.
    init(firstSessionID: UInt64 = 1 << 32) {
        nextSession = firstSessionID
    }

    /// The session a stream of this key joins, and whether it is new.
    mutating func session(for key: Key) -> (id: SessionID, isNew: Bool) {
        if let id = sessionsByKey[key] { return (id, false) }
        let id = SessionID(nextSession)
        nextSession += 1
        sessionsByKey[key] = id
        keys[id] = key
        sessionStreams[id] = []
        return (id, true)
    }

    mutating func add(_ stream: BackendStream, to session: SessionID) {
        streams[stream.id] = StreamRecord(stream: stream, session: session, reportedActive: false)
        sessionStreams[session, default: []].insert(stream.id)
    }

    mutating func update(_ stream: BackendStream) {
        streams[stream.id]?.stream = stream
    }

    mutating func setReportedActive(_ active: Bool, stream: UInt32) {
        streams[stream]?.reportedActive = active
    }

    /// Removes a stream; returns its record and whether its session is now empty.
    mutating func remove(stream id: UInt32) -> (record: StreamRecord, sessionEmpty: Bool)? {
        guard let record = streams.removeValue(forKey: id) else { return nil }
        sessionStreams[record.session]?.remove(id)
        return (record, sessionStreams[record.session]?.isEmpty ?? true)
    }

    mutating func removeSession(_ id: SessionID) {
        if let key = keys.removeValue(forKey: id) { sessionsByKey[key] = nil }
        sessionStreams[id] = nil
    }

    /// Gives a session another key (a rules reload reclassified it in place).
    mutating func rekey(_ id: SessionID, to key: Key) {
        if let old = keys[id] { sessionsByKey[old] = nil }
        keys[id] = key
        sessionsByKey[key] = id
    }

    func session(of key: Key) -> SessionID? { sessionsByKey[key] }

    func streams(of session: SessionID) -> [StreamRecord] {
        (sessionStreams[session] ?? []).sorted().compactMap { streams[$0] }
    }

    var sessionIDs: [SessionID] { keys.keys.sorted() }
}
