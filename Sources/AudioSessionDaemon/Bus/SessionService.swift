#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PipeWireGraph
import PolicyRules
import SessionBus
import SessionPolicy
import Synchronization

/// The session API on the user's session bus: `org.audiosession.Manager1` and one
/// `org.audiosession.Session1` object per explicit session.
///
/// Mechanism only: it turns calls into coordinator requests and engine decisions into
/// signals and properties. Threading: SessionBus hands calls over on its own thread; the
/// service only hops them onto the daemon's loop (``DaemonLoop``), where all of its
/// state lives (``LoopBound``), each peer's in its turn (``PeerTurns``). Nothing on the loop
/// waits for the bus:
/// replies, signals and property changes are queued to the bus thread.
final class SessionService: Sendable {
    /// More sessions than this from one connection is a runaway client, not an app.
    static let maxSessionsPerPeer = 64

    let bus: BusConnection
    /// The daemon's loop: every call and peer change is handed to it.
    let loop: DaemonLoop
    let coordinator: PolicyCoordinator
    let logger: Logger
    /// Silent mode and permissions are the user's: only callers with the daemon's uid may change them.
    let userID: UInt32 = getuid()

    /// What lives on the daemon's loop.
    private struct State {
        var permissions: PermissionStore
        var sessionObjects: [SessionID: BusObject] = [:]
        var silentMode = false
        var pendingPermissionRequests: [String: [PendingPermissionRequest]] = [:]
        var pendingDeactivations: [SessionID: PendingDeactivation] = [:]
        var refreshPending = false
        /// The engine step the properties were last refreshed at (`PolicyCoordinator.engineEvents`).
        var refreshedAtEngineEvent: UInt64?
        var announcedRoute: RouteDescription?
    }

    private let state: LoopBound<State>

    /// What a peer hands the loop: a call, or its leaving the bus (after its last call).
    enum PeerWork: Sendable {
        case call(BusCall)
        case left(String)
    }

    /// The peers' work on its way from the bus thread to the loop, taken in turns
    /// (``PeerTurns``), and whether the loop is taking them.
    private struct Inbox {
        var turns = PeerTurns<PeerWork>()
        var takingTurns = false
    }

    private let inbox = Mutex(Inbox())
    /// The manager object, wired once as the service starts.
    let manager = WiredOnce<BusObject?>(fallback: nil)

    var permissions: PermissionStore {
        get { state.permissions }
        _modify { yield &state.permissions }
    }
    var sessionObjects: [SessionID: BusObject] {
        get { state.sessionObjects }
        _modify { yield &state.sessionObjects }
    }
    var silentMode: Bool {
        get { state.silentMode }
        _modify { yield &state.silentMode }
    }
    /// `RequestRecordPermission` calls waiting for the user's answer, by app.
    var pendingPermissionRequests: [String: [PendingPermissionRequest]] {
        get { state.pendingPermissionRequests }
        _modify { yield &state.pendingPermissionRequests }
    }
    /// `SetActive(false)` calls waiting for their session's streams to stop (``SessionCalls``).
    var pendingDeactivations: [SessionID: PendingDeactivation] {
        get { state.pendingDeactivations }
        _modify { yield &state.pendingDeactivations }
    }
    var announcedRoute: RouteDescription? {
        get { state.announcedRoute }
        _modify { yield &state.announcedRoute }
    }

    /// Which audio server the daemon attached to (`AudioServer`).
    let audioServer: String
    /// The rules and how they were last read (`Rules`).
    let rules: LiveRules

    private init(
        bus: BusConnection, coordinator: PolicyCoordinator, rules: LiveRules, audioServer: String, permissions: PermissionStore,
        logger: Logger
    ) {
        self.bus = bus
        self.rules = rules
        self.audioServer = audioServer
        self.loop = coordinator.loop
        self.coordinator = coordinator
        state = LoopBound(State(permissions: permissions), on: coordinator.loop)
        self.logger = logger
    }

    /// Connects to the session bus named by `DBUS_SESSION_BUS_ADDRESS`, serves the manager and
    /// takes the well-known name. Returns nil after logging one line when there is no session
    /// bus or another daemon owns the name: the daemon then runs without the API.
    static func start(
        coordinator: PolicyCoordinator, rules: LiveRules, audioServer: String, stateDirectory: URL, logger: Logger
    ) async -> SessionService? {
        let bus: BusConnection
        do {
            bus = try BusConnection.session()
        } catch {
            logger.warning("no session bus (\(error.message)): running without the D-Bus API")
            return nil
        }
        let permissions = PermissionStore(directory: stateDirectory) { logger.warning("\($0)") }
        let service = SessionService(
            bus: bus, coordinator: coordinator, rules: rules, audioServer: audioServer, permissions: permissions, logger: logger)
        // Read on the loop: the engine is the loop's, and this task runs beside it (a read of it
        // here while a server event changed it crashed the daemon at start).
        let initial = await withCheckedContinuation { done in
            service.loop.perform { done.resume(returning: service.initialManagerProperties()) }
        }
        do {
            service.manager.wire(
                try bus.export(
                    path: SessionAPI.managerPath, interfaces: [SessionAPI.manager],
                    properties: [SessionAPI.managerInterface: initial]
                ) { [weak service] call in service?.receive(call) })
        } catch {
            logger.error("cannot serve \(SessionAPI.managerPath): \(error); running without the D-Bus API")
            bus.close()
            return nil
        }
        bus.onPeerDisconnected { [weak service] name in service?.hand(.left(name), from: name) }
        service.loop.perform {
            for (app, permission) in service.permissions.permissions {
                coordinator.setRecordPermission(permission, for: app)
            }
            coordinator.hooks.decision = { [weak service] decision in service?.observe(decision) }
            coordinator.hooks.remoteCommand = { [weak service] command, id in service?.sendRemoteCommand(command, to: id) ?? false }
            service.refresh()
        }
        do {
            try await bus.requestName(SessionAPI.busName)
        } catch {
            logger.error("cannot own \(SessionAPI.busName) (\(error)): running without the D-Bus API")
            bus.close()
            return nil
        }
        logger.info("serving \(SessionAPI.busName) on the session bus as \(bus.uniqueName)")
        return service
    }

    /// Stops serving; pending calls are answered with `Failed` by SessionBus.
    func stop() {
        loop.perform { [self] in
            coordinator.hooks.decision = nil
            coordinator.hooks.remoteCommand = nil
        }
        bus.close()
    }

    // MARK: - Calls

    /// Bus thread: hands a call (the manager's or a session object's) to the loop, nothing else.
    func receive(_ call: BusCall) { hand(.call(call), from: call.caller.uniqueName) }

    /// Bus thread: queues a peer's work for its turn; the loop is woken for the first.
    private func hand(_ work: PeerWork, from peer: String) {
        let wake = inbox.withLock { inbox -> Bool in
            inbox.turns.add(work, from: peer)
            guard !inbox.takingTurns else { return false }
            inbox.takingTurns = true
            return true
        }
        if wake { loop.perform { [self] in takeTurns() } }
    }

    /// Loop: one round of the peers' turns, then the next round after whatever else the loop
    /// has queued meanwhile (a graph event waits for one round, not for a peer's backlog).
    private func takeTurns() {
        let round = inbox.withLock { $0.turns.nextRound() }
        for work in round {
            switch work {
            case .call(let call) where call.path == SessionAPI.managerPath: handleManagerCall(call)
            case .call(let call): handleSessionCall(call)
            case .left(let peer): peerLeft(peer)
            }
        }
        refresh()
        let more = inbox.withLock { inbox -> Bool in
            inbox.takingTurns = !inbox.turns.isEmpty
            return inbox.takingTurns
        }
        if more { loop.performLater { [self] in takeTurns() } }
    }

    /// A peer left the bus: its sessions go, and so do its waiting permission requests.
    private func peerLeft(_ uniqueName: String) {
        let owned = coordinator.explicitSessions.values.filter { $0.owner.uniqueName == uniqueName }.map(\.id)
        guard !owned.isEmpty || pendingPermissionRequests.values.contains(where: { $0.contains { $0.owner == uniqueName } })
        else { return }
        coordinator.removeSessions(ownedBy: uniqueName)
        for id in owned { sessionObjects.removeValue(forKey: id)?.remove() }
        for app in pendingPermissionRequests.keys {
            pendingPermissionRequests[app]?.removeAll { $0.owner == uniqueName }
        }
        logger.info("\(uniqueName) left the bus: \(owned.count) session(s) removed")
    }

    /// A media control (MPRIS Play, Pause, Next, ...) for an explicit session that is the
    /// current media player: its app gets it as a `RemoteCommand` signal. False when the
    /// session has no object (not an explicit session).
    func sendRemoteCommand(_ command: String, to id: SessionID) -> Bool {
        guard let object = sessionObjects[id] else { return false }
        try? object.emit("RemoteCommand", of: SessionAPI.sessionInterface, [.string(command)])
        return true
    }

    // MARK: - Decisions → signals

    /// Every decision, on the loop thread, after the coordinator carried it out. The engine has
    /// finished the step that made it, so before a signal goes out the properties are brought
    /// up to date: a client that reads one when the signal arrives sees the state it announces.
    /// Other decisions only mark the properties stale (one refresh per burst, off the hot path).
    private func observe(_ decision: PolicyDecision) {
        switch decision {
        case .interruptionBegan(let id, _, _), .interruptionEnded(let id, _, _), .routeChanged(let id, _, _),
             .secondaryAudioHint(let id, _):
            if sessionObjects[id] != nil { refresh() }
        case .mediaServicesLost, .mediaServicesReset, .nowPlayingChanged:
            refresh()
        default:
            scheduleRefresh()
        }
        switch decision {
        case .interruptionBegan(let id, let reason, _):
            try? sessionObjects[id]?.emit(
                "Interruption", of: SessionAPI.sessionInterface,
                [.uint32(UInt32(InterruptionType.began.rawValue)), .uint32(UInt32(reason.rawValue)), .uint32(0)])
        case .interruptionEnded(let id, let options, _):
            try? sessionObjects[id]?.emit(
                "Interruption", of: SessionAPI.sessionInterface,
                [.uint32(UInt32(InterruptionType.ended.rawValue)), .uint32(0), .uint32(UInt32(options.rawValue))])
        case .routeChanged(let id, let reason, let previous):
            try? sessionObjects[id]?.emit(
                "RouteChange", of: SessionAPI.sessionInterface, [.uint32(UInt32(reason.rawValue)), WireValues.route(previous)])
        case .secondaryAudioHint(let id, let type):
            try? sessionObjects[id]?.emit(
                "SilenceSecondaryAudioHint", of: SessionAPI.sessionInterface, [.uint32(UInt32(type.rawValue))])
        case .mediaServicesLost:
            try? manager.value?.emit("MediaServicesLost", of: SessionAPI.managerInterface)
        case .mediaServicesReset:
            try? manager.value?.emit("MediaServicesReset", of: SessionAPI.managerInterface)
        case .nowPlayingChanged(let id):
            let app = id.flatMap { coordinator.engine.snapshot(of: $0)?.label } ?? ""
            try? manager.value?.emit("NowPlayingChanged", of: SessionAPI.managerInterface, [.uint64(id?.rawValue ?? 0), .string(app)])
        default:
            break
        }
        let event = DecisionEvent(decision)
        try? manager.value?.emit(
            "Decision", of: SessionAPI.managerInterface,
            [.uint64(decision.session?.rawValue ?? 0), .string(event.kind), .dictionary(event.details)])
    }

    /// Refreshes once, after the loop finished what it is doing now, unless something else
    /// refreshed first (the daemon does after every graph event).
    /// After a graph event: refreshes the properties only if the engine was told something
    /// since the last refresh. Most graph events (a volume step's echo, a link's state) tell it
    /// nothing, and a refresh re-encodes and compares every property (a tenth of the daemon's
    /// time during a duck).
    func graphEventHandled() {
        guard coordinator.engineEvents != state.refreshedAtEngineEvent else { return }
        scheduleRefresh()
    }

    func scheduleRefresh() {
        guard !state.refreshPending else { return }
        state.refreshPending = true
        loop.performLater { [weak self] in
            guard let self, self.state.refreshPending else { return }
            self.refresh()
        }
    }

    /// Brings every exported property in line with the engine (only changes are announced).
    func refresh() {
        loop.assertConfined("the session API's properties")
        state.refreshPending = false
        state.refreshedAtEngineEvent = coordinator.engineEvents
        let engine = coordinator.engine
        for (id, object) in sessionObjects {
            guard coordinator.explicitSessions[id] != nil, let values = sessionProperties(id) else {
                sessionObjects.removeValue(forKey: id)
                object.remove()
                continue
            }
            var mutable = values
            mutable["Id"] = nil
            mutable["App"] = nil
            mutable["Label"] = nil
            try? object.setProperties(mutable, of: SessionAPI.sessionInterface)
        }
        finishDeactivations(waitingOnly: true)
        let route = engine.systemRoute
        try? manager.value?.setProperties(managerProperties(route: route), of: SessionAPI.managerInterface)
        if let previous = announcedRoute, previous != route {
            try? manager.value?.emit(
                "RouteChange", of: SessionAPI.managerInterface,
                [.uint32(UInt32(RouteChangeReason.systemRouteChange(from: previous, to: route, available: engine.availablePorts).rawValue)), WireValues.route(previous)])
        }
        announcedRoute = route
    }
}

/// A `SetActive(false)` call waiting for its session's audio to stop, until a deadline.
struct PendingDeactivation {
    var call: BusCall
    var options: SetActiveOptions
    var deadline: ScheduledWork
}

/// A `RequestRecordPermission` call waiting for the user to decide.
struct PendingPermissionRequest {
    var call: BusCall
    var owner: String
}
