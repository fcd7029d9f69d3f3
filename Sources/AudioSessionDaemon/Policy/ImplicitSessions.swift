import SessionPolicy

/// The daemon's book of sessions: which streams exist, which app (and so which implicit
/// session) each belongs to, what the engine has been told about each stream, and the explicit
/// sessions apps created (``explicit``).
///
/// An implicit session is one app, however many connections it opens (``AppIdentity``): an
/// app's own streams never interrupt, duck or hold each other. Its classification comes from
/// all of its streams together (``AppComposition``).
struct ImplicitSessions {
    struct StreamRecord {
        var stream: BackendStream
        var session: SessionID
        /// What the rules say of this stream alone.
        var classification: StreamClassificationFacts
        /// The engine was told this stream runs (`streamStarted`), and not since that it stopped.
        var reportedActive: Bool
        /// It ran without a stop for longer than a short sound (``AppBehaviour/shortSoundLimit``).
        var hasPlayedLong = false
    }

    /// The rules' verdict on one stream, kept for recomposing its app.
    struct StreamClassificationFacts: Equatable {
        var classification: Classification
        var identity: AppIdentity
    }

    private(set) var streams: [StreamID: StreamRecord] = [:]
    private(set) var sessionStreams: [SessionID: Set<StreamID>] = [:]
    /// Each implicit session's app, and the classification the engine has for it.
    private(set) var apps: [SessionID: AppIdentity] = [:]
    private(set) var composed: [SessionID: AppClassification] = [:]
    private var sessionsByApp: [AppIdentity: SessionID] = [:]
    private var nextSession: UInt64
    /// The explicit sessions (created over the session API), with who owns them: their streams
    /// are booked here too.
    var explicit = ExplicitSessionBook()

    /// Session ids of implicit sessions start high so they never collide with explicit ones.
    init(firstSessionID: UInt64 = 1 << 32) {
        nextSession = firstSessionID
    }

    /// Whether `id` is an implicit session (explicit sessions have streams here too).
    func isImplicit(_ id: SessionID) -> Bool { apps[id] != nil }

    /// The app's session, if it has one.
    func existingSession(of app: AppIdentity) -> SessionID? { sessionsByApp[app] }

    /// The session of this app, and whether it is new.
    mutating func session(for app: AppIdentity) -> (id: SessionID, isNew: Bool) {
        if let id = sessionsByApp[app] { return (id, false) }
        let id = SessionID(nextSession)
        nextSession += 1
        sessionsByApp[app] = id
        apps[id] = app
        sessionStreams[id] = []
        return (id, true)
    }

    mutating func add(_ stream: BackendStream, to session: SessionID, classification: StreamClassificationFacts) {
        streams[stream.id] = StreamRecord(stream: stream, session: session, classification: classification, reportedActive: false)
        sessionStreams[session, default: []].insert(stream.id)
    }

    mutating func update(_ stream: BackendStream) {
        streams[stream.id]?.stream = stream
    }

    mutating func setClassification(_ classification: StreamClassificationFacts, stream: StreamID) {
        streams[stream]?.classification = classification
    }

    mutating func setReportedActive(_ active: Bool, stream: StreamID) {
        streams[stream]?.reportedActive = active
    }

    mutating func setPlayedLong(stream: StreamID) {
        streams[stream]?.hasPlayedLong = true
    }

    /// Records what the engine now has for a session.
    mutating func setComposed(_ classification: AppClassification, session: SessionID) {
        composed[session] = classification
    }

    /// Removes a stream; returns its record and whether its session is now empty.
    mutating func remove(stream id: StreamID) -> (record: StreamRecord, sessionEmpty: Bool)? {
        guard let record = streams.removeValue(forKey: id) else { return nil }
        sessionStreams[record.session]?.remove(id)
        return (record, sessionStreams[record.session]?.isEmpty ?? true)
    }

    mutating func removeSession(_ id: SessionID) {
        if let app = apps.removeValue(forKey: id) { sessionsByApp[app] = nil }
        composed[id] = nil
        sessionStreams[id] = nil
    }

    func streams(of session: SessionID) -> [StreamRecord] {
        (sessionStreams[session] ?? []).sorted().compactMap { streams[$0] }
    }

    var sessionIDs: [SessionID] { apps.keys.sorted() }
}
