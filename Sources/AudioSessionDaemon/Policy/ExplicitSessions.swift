#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SessionPolicy

/// A session an app asked for over the session API (D-Bus, `audiosessionctl run`, the Swift
/// library): it configures and activates itself; the rules do not classify it.
struct ExplicitSession: Equatable {
    var id: SessionID
    /// Who may act on it: the bus connection that created it.
    var owner: SessionOwner
    var app: String
}

/// The peer that created an explicit session.
struct SessionOwner: Hashable, Sendable {
    /// Its D-Bus unique name (`:1.42`): the session goes when this connection does.
    var uniqueName: String
    var pid: Int32
    var uid: UInt32
    /// Its Flatpak app id, read from its process when it connected (nil: unsandboxed).
    var sandboxAppID: String? = nil
    /// The app id its process vouches for (``AppIdentity/appID``), read when it connected.
    var appID: String? = nil

    var ownership: SessionOwnership.Owner { SessionOwnership.Owner(pid: pid, sandboxAppID: sandboxAppID, appID: appID) }
}

/// The explicit sessions, with who owns them, and the streams whose claim to one was refused
/// (each logged once).
struct ExplicitSessionBook {
    private(set) var byID: [SessionID: ExplicitSession] = [:]
    private var nextID: UInt64 = 1
    private var refusedClaims: Set<StreamID> = []

    subscript(id: SessionID) -> ExplicitSession? { byID[id] }
    var isEmpty: Bool { byID.isEmpty }
    var values: Dictionary<SessionID, ExplicitSession>.Values { byID.values }

    mutating func create(owner: SessionOwner, app: String) -> SessionID {
        let id = SessionID(nextID)
        nextID += 1
        byID[id] = ExplicitSession(id: id, owner: owner, app: app)
        return id
    }

    /// False when it was not there.
    mutating func remove(_ id: SessionID) -> Bool {
        byID.removeValue(forKey: id) != nil
    }

    /// A stream's claim to a session was refused; true the first time (it is logged then).
    mutating func refuseClaim(of stream: StreamID) -> Bool {
        refusedClaims.insert(stream).inserted
    }

    /// A stream is gone.
    mutating func forgetClaim(of stream: StreamID) {
        refusedClaims.remove(stream)
    }
}

extension PolicyCoordinator {
    /// Creates an explicit session owned by `owner`; soloAmbient and inactive, as in AVAudioSession.
    func createExplicitSession(app requested: String, owner: SessionOwner) -> SessionID {
        let app = SessionOwnership.app(named: requested, by: owner.ownership)
        if app != requested { logger.info("a session asked for as '\(requested)' is \(app)'s: its process says so") }
        let id = sessions.explicit.create(owner: owner, app: app)
        submit(.sessionCreated(id, SessionDescriptor(kind: .explicit, app: app, label: requested)))
        logger.info("\(id) created by \(owner.uniqueName) (pid \(owner.pid), '\(app)')")
        return id
    }

    /// Removes an explicit session (closed by its owner, or its owner left the bus).
    func removeExplicitSession(_ id: SessionID) {
        guard sessions.explicit.remove(id) else { return }
        submit(.sessionRemoved(id))
        effects.remove(id)
        logger.info("\(id) removed")
    }

    /// Every explicit session of a bus peer that went away.
    func removeSessions(ownedBy uniqueName: String) {
        for id in explicitSessions.values.filter({ $0.owner.uniqueName == uniqueName }).map(\.id).sorted() {
            removeExplicitSession(id)
        }
    }

    /// Runs a request about one session and returns the engine's verdict on it: the error it
    /// refused with, or nil when it was carried out.
    func request(_ event: PolicyEvent, for id: SessionID) -> AudioSessionError? {
        let decisions = submit(event)
        for decision in decisions {
            if case .failed(id, let error) = decision { return error }
        }
        if case .setCategory(_, let category, let mode, let options) = event, explicitSessions[id] != nil {
            classifyExplicit(id, category: category, mode: mode, options: options)
        }
        return nil
    }

    /// An explicit session chooses its own category, mode and options; its priority class (and
    /// how it treats lower classes) comes from the rules, matched on what it chose
    /// (`audiosession.category`, `audiosession.mode`), so a `voiceChat` session is a call
    /// whatever profile is in force, and integrators can tune it like any other rule.
    func classifyExplicit(_ id: SessionID, category: Category, mode: Mode, options: CategoryOptions) {
        let ruled = ruleSet.classification(of: [
            "audiosession.category": category.wireName, "audiosession.mode": mode.wireName,
        ])
        let classification = Classification(
            category: category, mode: mode, options: options, priorityClass: ruled.priorityClass,
            interaction: ruled.interaction)
        guard let current = engine.snapshot(of: id), current.priorityClass != classification.priorityClass
            || ruled.interaction != nil
        else { return }
        logger.info("\(id) is class \(classification.priorityClass.name) (\(category.wireName)/\(mode.wireName))")
        submit(.reclassify(id, classification))
    }

    func setSilentMode(_ on: Bool) {
        logger.info("silent mode \(on ? "on" : "off")")
        submit(.silentMode(on))
    }

    func setScreenLocked(_ locked: Bool) {
        submit(.screenLocked(locked))
    }

    func setRecordPermission(_ permission: RecordPermission, for app: String) {
        logger.info("record permission of '\(app)': \(permission.wireName)")
        submit(.recordPermissionChanged(app: app, permission))
    }

    /// Everything `audiosessionctl status` and the D-Bus properties show.
    var sessionSnapshots: [SessionSnapshot] {
        engine.sessionIDs.compactMap { engine.snapshot(of: $0) }
    }
}

extension PolicyCoordinator {
    /// The explicit session a stream belongs to: the one it names (``BackendStream/namedSession``)
    /// when it may join it (``SessionOwnership/mayJoin(streamLineage:streamSandboxAppID:owner:)``:
    /// from its owner's process tree or the same sandboxed app), else the one whose owner is the
    /// stream's process or one of its ancestors.
    func explicitSession(of stream: BackendStream) -> SessionID? {
        guard !explicitSessions.isEmpty else { return nil }
        // Read once per process (the classification reads the same facts).
        let facts = processFacts(of: stream)
        let ancestors = facts.lineage.map(\.pid)
        if let named = stream.namedSession, let session = explicitSessions[SessionID(named)] {
            if SessionOwnership.mayJoin(streamLineage: ancestors, streamSandboxAppID: facts.sandboxAppID, owner: session.owner.ownership) {
                return session.id
            }
            if sessions.explicit.refuseClaim(of: stream.id) {
                logger.warning(
                    "stream \(stream.id) of '\(stream.appName)' names \(session.id), which belongs to another app: not joined")
            }
        }
        guard stream.processID != nil else { return nil }
        // The nearest owner wins (a session created by a child process beats its parent's).
        for ancestor in ancestors {
            if let match = explicitSessions.values.filter({ $0.owner.pid == ancestor }).map(\.id).min() {
                return match
            }
        }
        return nil
    }
}
