import Logging
import SessionPolicy

/// Route execution: carries out the engine's route decisions — `.link` (where a session's
/// streams go), `.routeChanged` (logged with its reason and previous route; the D-Bus service
/// signals it) and `.pauseForRouteLoss` (pause on unplug) — and keeps the backend's default
/// devices on the system route. A component with its own state.
///
/// Pause on unplug stops the audio at once whatever the method: the session's streams are held
/// (unlinked) in the same step, so nothing plays from the speakers while an MPRIS `Pause` or an
/// app's own reaction is on its way. With MPRIS, the hold ends once the session's players all
/// report that they stopped playing: the stream goes back on its new route, silent, and plays
/// there when its user presses play. Otherwise (unlink) the hold lasts until the session is
/// active again: its user plays it (an uncork, a new stream), never on its own — not when the
/// headphones come back. Either way the session's streams count as paused by their user.
final class RouteExecution: Sendable {
    /// Where streams are linked and the default devices published.
    private unowned let backend: AudioBackend
    /// Where the player checks come back (``DueWork/routeLossCheck(_:since:)``).
    private let inbox: DueWorkInbox
    private let logger: Logger
    private let timing: EnforcementTiming
    private struct State {
        /// Routes decided in the step being carried out, linked at its end (``applyPendingRoutes(sessions:systemRoute:)``).
        var pendingRoutes: [SessionID: RouteDescription] = [:]
        /// The default devices last handed to the backend.
        var preferredDefaults: (output: DeviceID?, input: DeviceID?) = (nil, nil)
        /// Devices or defaults changed since the defaults were last handed to the backend.
        var devicesChanged = false
        /// Sessions paused for a lost route whose MPRIS players are being watched for their pause.
        var routeLossChecks: [SessionID: ScheduledWork] = [:]
        /// The named devices last reported for streams (``reportPinnedStreams(_:)``).
        var reportedPins: [StreamID: DeviceID] = [:]
    }

    private let state: LoopBound<State>

    /// Devices or defaults changed since the defaults were last handed to the backend.
    var devicesChanged: Bool {
        get { state.devicesChanged }
        set { state.devicesChanged = newValue }
    }

    init(backend: AudioBackend, inbox: DueWorkInbox, timing: EnforcementTiming, logger: Logger) {
        self.backend = backend
        self.inbox = inbox
        self.timing = timing
        self.logger = logger
        state = LoopBound(State(), on: inbox.loop)
    }

    /// The graph went away: nothing is pinned, nothing is checked.
    func forgetAll() {
        state.reportedPins.removeAll()
        for check in state.routeLossChecks.values { check.cancel() }
        state.routeLossChecks.removeAll()
    }

    /// A stream is gone: the engine forgets where it was pinned.
    func streamRemoved(_ id: StreamID) -> [FollowUp] {
        state.reportedPins.removeValue(forKey: id) != nil ? [.submit(.streamPinned(id, to: nil))] : []
    }

    /// A session's route: its streams are linked there at the end of the current step.
    func routeDecided(_ id: SessionID, _ route: RouteDescription) {
        logger.info("\(id) routed to \(Self.describe(route))")
        state.pendingRoutes[id] = route
    }

    func routeChanged(_ id: SessionID, reason: RouteChangeReason, previous: RouteDescription, current: RouteDescription) {
        logger.info(
            "\(id) route change: \(reason.wireName) (\(reason.rawValue)); previous \(Self.describe(previous)); now \(Self.describe(current))")
    }

    /// Holds (or mutes) a session whose output went away; its streams count as paused by their
    /// user, so playing again is a new start.
    func pauseForRouteLoss(_ id: SessionID, method: InterruptionMethod, streams: [StreamID]) -> [FollowUp] {
        logger.info("\(id) paused: its output went away (pause on unplug, by \(method.wireName))")
        var followUps = streams.map { FollowUp.markReported($0, active: false) }
        followUps.append(.routeLoss(id, method == .mute ? .mute : method == .mpris ? .mpris : .unlink))
        if method == .mpris { followUps.append(.then(.routeLossCheck(id, since: inbox.now))) }
        return followUps
    }

    /// Ends an MPRIS session's hold once every player of it stopped playing (they answer Pause
    /// over the bus a little after the route is gone); a player that never does stays held.
    /// `players` are the session's MPRIS players and their statuses, nil without a session bus.
    func checkPlayersPaused(
        _ id: SessionID, since start: Timestamp, effects: SessionEffects?, players: [String: PlaybackStatus]?
    ) -> [FollowUp] {
        state.routeLossChecks.removeValue(forKey: id)?.cancel()
        guard effects?.pausedForRouteLoss == true, let players else { return [] }
        let now = inbox.now
        if !players.isEmpty, players.values.allSatisfy({ $0 != .playing }) {
            logger.info("\(id): its player stopped \(now - start) after the route loss; back on its route, silent until played")
            return [.routeLoss(id, nil)]
        } else if now - start < timing.routeLossPlayerDeadline {
            state.routeLossChecks[id] = inbox.schedule(after: timing.routeLossPlayerCheck, .routeLossCheck(id, since: start))
        } else {
            logger.warning("\(id): its player did not stop within \(timing.routeLossPlayerDeadline); kept unlinked until it plays again")
        }
        return []
    }

    /// The session is active again (its user played it): its streams may be linked again.
    func routeLossEnded(_ id: SessionID, effects: SessionEffects?, route: RouteDescription?) -> [FollowUp] {
        state.routeLossChecks.removeValue(forKey: id)?.cancel()
        guard effects?.pausedForRouteLoss == true else { return [] }
        logger.info("\(id) plays again after its route loss: linking it to \(Self.describe(route ?? .empty))")
        return [.routeLoss(id, nil)]
    }

    /// Tells the engine which of `streams` play on a device they named, not on their session's
    /// route (pause on unplug spares a session whose playback all plays elsewhere). Read from
    /// the backend before a device goes, the only time the engine needs it.
    func reportPinnedStreams(_ streams: [StreamID]) -> [FollowUp] {
        var followUps: [FollowUp] = []
        for id in streams.sorted() {
            let device = backend.pinnedDevice(of: id)
            guard device != state.reportedPins[id] else { continue }
            state.reportedPins[id] = device
            followUps.append(.submit(.streamPinned(id, to: device)))
        }
        return followUps
    }

    /// A new stream joins its session's current route before anything links it.
    func routeNewStream(_ stream: BackendStream, to route: RouteDescription?) {
        backend.route(stream.id, to: Self.devices(of: route ?? .empty, for: stream.direction))
    }

    /// Links the routes decided in this step, and publishes the defaults the policy now prefers.
    func applyPendingRoutes(sessions: ImplicitSessions, systemRoute: @autoclosure () -> RouteDescription) {
        inbox.loop.assertConfined("route execution")
        let routes = state.pendingRoutes
        state.pendingRoutes.removeAll()
        for (id, route) in routes.sorted(by: { $0.key < $1.key }) {
            for record in sessions.streams(of: id) {
                backend.route(record.stream.id, to: Self.devices(of: route, for: record.stream.direction))
            }
        }
        // Only a device change or a new route can move the defaults: the stream hot path skips this.
        guard state.devicesChanged || !routes.isEmpty else { return }
        state.devicesChanged = false
        let system = systemRoute()
        let wanted = (output: system.outputs.first?.device, input: system.inputs.first?.device)
        guard wanted != state.preferredDefaults else { return }
        state.preferredDefaults = wanted
        backend.preferDefaultDevices(output: wanted.output, input: wanted.input)
    }

    /// The device nodes a stream of this direction is linked to on a route (ports of one node
    /// are one device).
    static func devices(of route: RouteDescription, for direction: StreamDirection) -> [DeviceID] {
        let ports = direction == .playback ? route.outputs : route.inputs
        var seen: Set<DeviceID> = []
        return ports.map(\.device).filter { seen.insert($0).inserted }
    }

    /// `in[] out[Speaker:card-output:analog-output-speaker]`: each port with its Apple type.
    static func describe(_ route: RouteDescription) -> String {
        func ports(_ list: [Port]) -> String { list.map { "\($0.type.rawValue):\($0.uid)" }.joined(separator: ",") }
        return "in[\(ports(route.inputs))] out[\(ports(route.outputs))]"
    }
}
