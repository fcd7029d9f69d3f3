#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PolicyRules
import SessionPolicy

/// Feeds the policy engine what the audio server does, and carries out what it decides.
///
/// Backend-agnostic: it sees ``BackendEvent``s and acts through ``AudioBackend``. It decides
/// nothing itself — the engine does — it only keeps the bookkeeping that turns streams into
/// sessions and session-level decisions into per-stream actions.
///
/// Its own state lives on the loop (``LoopBound``); the components it owns keep theirs.
final class PolicyCoordinator: Sendable {
    private struct State {
        var engine: PolicyEngine
        var classifier: StreamClassifier
        var sessions = ImplicitSessions()
        var steps: StepQueue
        var playerControl: PlayerControl?
        var coexistence: Coexistence
    }

    private let state: LoopBound<State>
    /// The loop this runs on, and its clock: the only source of time and timers. Its work
    /// carries out the decisions left for later first (``steps``).
    let loop: DaemonLoop
    unowned let backend: AudioBackend
    let logger: Logger
    /// When idle and silent streams stop counting as running, short sounds, holdovers, meters
    /// (Policy/ActivityWatch.swift).
    let activityWatch: ActivityWatch
    /// What the policy imposes on each session now, carried to its streams (Policy/EffectsTable.swift).
    let effects: EffectsTable
    /// Everything carried out on the server, and its undoing.
    let enforcement: Enforcement
    /// Route decisions carried out, and the defaults kept on the system route (Routes/).
    let routes: RouteExecution

    var engine: PolicyEngine {
        get { state.engine }
        _modify { yield &state.engine }
    }
    /// The rules in force, and who each stream's process is (Policy/StreamClassifier.swift).
    private var classifier: StreamClassifier {
        get { state.classifier }
        _modify { yield &state.classifier }
    }
    var sessions: ImplicitSessions {
        get { state.sessions }
        _modify { yield &state.sessions }
    }
    /// The one queue every decision is carried out from, in order, and what describes a
    /// server event's turn (Policy/StepQueue.swift).
    private var steps: StepQueue {
        get { state.steps }
        _modify { yield &state.steps }
    }
    /// MPRIS players and the pauses we pressed (MPRIS/PlayerControl.swift); nil without a session bus.
    private(set) var playerControl: PlayerControl? {
        get { state.playerControl }
        _modify { yield &state.playerControl }
    }
    var mpris: MPRISPauses? { playerControl?.mpris }
    /// Whether we link, beside whichever other session manager (PolicyCoordinator+Coexistence.swift).
    var coexistence: Coexistence {
        get { state.coexistence }
        _modify { yield &state.coexistence }
    }

    init(
        ruleSet: RuleSet, backend: AudioBackend, loop: DaemonLoop, stateDirectory: URL, linkingMode: LinkingMode = .always,
        timing: EnforcementTiming = .standard, logger: Logger
    ) {
        let loop = CatchingUpLoop(loop)
        self.loop = loop
        enforcement = Enforcement(backend: backend, loop: loop, stateDirectory: stateDirectory, timing: timing, logger: logger)
        self.backend = backend
        self.logger = logger
        let inbox = DueWorkInbox(loop: loop)
        routes = RouteExecution(backend: backend, inbox: inbox, timing: timing, logger: logger)
        activityWatch = ActivityWatch(backend: backend, inbox: inbox)
        effects = EffectsTable(enforcement: enforcement, inbox: inbox, interruptionGrace: timing.interruptionGrace)
        state = LoopBound(
            State(
                engine: PolicyEngine(configuration: ruleSet.configuration), classifier: StreamClassifier(ruleSet),
                steps: StepQueue(inbox: inbox), coexistence: Coexistence(mode: linkingMode)),
            on: loop)
        // On the loop, where the backend's state lives: queued now, it runs before the server's
        // first event (each loop runs the work queued before it started first).
        loop.perform { backend.usePortTypeRule { [ruleSet] in ruleSet.portType(properties: $0) } }
        loop.catchUp.wire { [weak self] in self?.catchUp() }
        inbox.handler.wire { [weak self] in self?.dueWorkArrived($0) }
    }

    /// Where the components' timers and answers come back (the queue's entrance).
    private var inbox: DueWorkInbox { steps.inbox }
    /// What the bus side hears from here (Policy/BusHooks.swift): the queue's exit.
    var hooks: BusHooks {
        get { steps.hooks }
        set { steps.hooks = newValue }
    }
    var now: Timestamp { loop.now }
    /// The audio server is there (between `attached` and `lost`; kept by enforcement, which
    /// undoes what it changed there).
    var isAttached: Bool { enforcement.isAttached }
    /// Every delay between a decision and its last effect.
    var timing: EnforcementTiming { enforcement.timing }
    /// Counts the engine's steps (events handled, reconfigurations): what the session API's
    /// properties derive from cannot have changed while it stays the same.
    var engineEvents: UInt64 { steps.engineSteps }

    /// Who links streams to devices, and why: the server itself, or us per ``coexistence``.
    var linkingReason: String { backend.routesItself ?? coexistence.reason }
    /// Who switches headsets' profiles, and why.
    var headsetSwitching: String { backend.switchesHeadsetsItself ?? engine.headsetSwitching }

    // MARK: - Events from the backend

    func handle(_ event: BackendEvent) {
        loop.assertConfined("the policy coordinator")
        steps.openStep()
        if steps.beginServerEvent() {
            LogOutput.standardError.hold()
            loop.performLater { [weak self] in self?.serverEventsHandled() }
        }
        defer {
            steps.endServerEvent()
            endStep()
        }
        catchUp()  // what was left for this turn goes first
        switch event {
        case .attached, .portAppeared, .portRemoved, .portLeftWithProfile, .portAvailabilityChanged, .portChanged, .defaultChanged:
            routes.devicesChanged = true  // the policy's default devices may have moved (Routes/RouteExecution.swift)
        default:
            break
        }
        switch event {
        case .attached(let streams, let ports, let defaultOutput, let defaultInput):
            logger.info("\(linkingReason)")
            let restored = enforcement.attachment != .never
            enforcement.attached()  // a crashed run's leftovers first
            if restored { submit(.graphRestored) }
            submit(.devicesEnumerated(ports, defaultOutput: defaultOutput, defaultInput: defaultInput))
            for stream in streams.sorted(by: { $0.id < $1.id }) { streamAppeared(stream) }
            follow(playerControl?.mprisGraphAttached(in: playerContext))  // leftover MPRIS pauses: MPRIS/PlayerControl+Leftovers.swift
        case .lost:
            enforcement.lost()
            routes.forgetAll()
            playerControl?.mprisGraphLost()  // before the sessions go: our MPRIS pauses outlive them
            dropAllStreams()
            submit(.graphLost)
        case .streamAnnounced(let stream, let mayStartPaused):
            // A stream that may start paused is judged once it is seen: a call created paused
            // must not cut anyone off.
            if !mayStartPaused { streamAnnounced(stream) }
        case .streamAppeared(let stream):
            streamAppeared(stream)
        case .streamChanged(let stream):
            streamChanged(stream)
        case .streamRemoved(let id):
            streamRemoved(id)
        case .portAppeared(let port):
            logger.info("port appeared: \(port.type.rawValue):\(port.uid)")
            submit(.deviceAdded(port))
        case .portRemoved(let uid):
            logger.info("port gone: \(uid)")
            follow(routes.reportPinnedStreams(Array(sessions.streams.keys)))
            submit(.deviceRemoved(uid: uid))
        case .portLeftWithProfile(let uid):
            logger.info("port gone with its device's profile: \(uid)")
            submit(.deviceSwitchingProfile(uid: uid))
        case .deviceProfileChanged(let device, let profile, let saved):
            logger.info("device \(device): profile \(profile)\(saved ? ", its user's saved choice" : "")")
            submit(.deviceProfileReported(device: device, profile: profile, saved: saved))
        case .headsetProfilesChanged(let device, let profiles):
            logger.info("headset \(device): \(profiles.map { "\($0.active?.wireName ?? "no") profile\($0.canCall ? ", can take calls" : "")" } ?? "not ours to switch")")
            enforcement.headsetProfiles.profileReported(backend.activeProfile(ofHeadset: device), of: device)
            submit(.headsetProfilesChanged(device: device, profiles))
        case .portAvailabilityChanged(let uid, let available):
            logger.info("port \(available ? "available" : "unavailable"): \(uid)")
            if !available { follow(routes.reportPinnedStreams(Array(sessions.streams.keys))) }
            submit(.portAvailabilityChanged(uid: uid, available: available))
        case .portChanged(let port):
            logger.info("port changed: \(port.type.rawValue):\(port.uid), \(port.channels) channels")
            submit(.portChanged(port))
        case .defaultChanged(let direction, let uid):
            submit(.defaultDeviceChanged(direction, uid: uid))
        case .outputVolumeChanged(let device, let volume):
            logger.debug("\(device): volume \(volume) (its user's)")
            submit(.outputVolumeChanged(device, volume))
        case .inputMuted(let device, let muted):
            logger.info("\(device) \(muted ? "muted" : "unmuted") by its user")
            submit(.inputMuted(device, muted))
        case .dataSourcesChanged(let device, let sources):
            logger.debug("\(device): data sources \(sources.map { "\($0.sources), selected \($0.selected.map(String.init) ?? "none")" } ?? "none")")
            enforcement.dataSources.selectionReported(sources?.selected, of: device)
            submit(.dataSourcesChanged(device, sources))
        case .inputVolumeChanged(let device, let volume):
            logger.debug("\(device): input volume \(volume.map { "\($0)" } ?? "none")")
            enforcement.inputGains.volumeReported(volume, of: device)
            submit(.inputVolumeChanged(device, volume))
        case .hardware(let hardware):
            graphHardwareChanged(hardware)
        case .clockObserved(let clock):
            clockObserved(clock)
        case .streamAudible(let id, let audible):
            streamAudible(id, audible)
        case .holdRefused(let id):
            holdRefused(id)
        case .volumeReported(let id, let volume):
            enforcement.volumeReported(volume, of: id)
        case .peersChanged(let peers):
            peersChanged(peers)
        case .headsetAutoswitchChanged(let on):
            headsetAutoswitchChanged(on)
        case .rolePolicySeen(let stream, let target):
            rolePolicySeen(stream: stream, target: target)
        }
    }

    // MARK: - Players

    /// The session bus is there: MPRIS players are controlled from now on (`pauses` holds what
    /// a previous run left paused).
    func attachPlayers(_ pauses: MPRISPauses) {
        playerControl = PlayerControl(mpris: pauses, inbox: inbox, timing: timing, quietness: activityWatch.quietness, logger: logger)
    }

    /// Player news from the bus side (already on the loop).
    func playerEvent(_ event: MPRISEvent) {
        follow(playerControl?.mprisPlayerEvent(event, in: playerContext))
    }

    /// Every player on the bus at start has been reported.
    func playersDiscovered() {
        follow(playerControl?.mprisPlayersDiscovered(in: playerContext))
    }

    /// The MPRIS players of a session, by bus name (none without a session bus).
    func playerNames(of id: SessionID) -> Set<String> {
        playerControl?.mprisPlayerNames(of: id, in: sessions) ?? []
    }

    /// The playback status of each MPRIS player of a session, by bus name.
    func playerStatuses(of id: SessionID) -> [String: PlaybackStatus] {
        playerControl?.mprisPlayerStatuses(of: id, in: sessions) ?? [:]
    }

    /// The current media player, as the Now Playing player shows it.
    var nowPlaying: NowPlaying {
        guard let id = engine.nowPlaying else { return .none }
        return NowPlaying(session: id, snapshot: engine.snapshot(of: id), players: playerNames(of: id), statuses: playerStatuses(of: id))
    }

    /// What the player control reads of ours, for one call.
    private var playerContext: PlayerControl.Context {
        PlayerControl.Context(sessions: sessions, effects: effects.bySession, isAttached: isAttached)
    }

    /// How an implicit session can be interrupted now: what the backend can do, and MPRIS
    /// when the session has a player.
    func interruptionMethods(of id: SessionID) -> Set<InterruptionMethod> {
        mpris?.sessionsWithPlayers.contains(id) == true ? backend.interruptionMethods.union([.mpris]) : backend.interruptionMethods
    }

    /// Before exit: Play on the players we paused (``PlayerControl/mprisResumeBeforeExit(_:)``);
    /// `done` runs once they answered, at once without players.
    func resumePlayersBeforeExit(_ done: @escaping @Sendable () -> Void) {
        guard let playerControl else { return done() }
        playerControl.mprisResumeBeforeExit(done)
    }

    /// Swaps in a new rule set: the engine is reconfigured and every stream re-classified.
    func reload(_ fresh: RuleSet) {
        classifier.use(fresh)
        routes.devicesChanged = true
        backend.usePortTypeRule { fresh.portType(properties: $0) }
        reconfigure(fresh.configuration)
        for id in sessions.streams.keys.sorted() {
            guard let record = sessions.streams[id] else { continue }
            restream(record, facts: classify(record.stream))
        }
    }

    // MARK: - Streams

    /// What the rules say of a stream alone, and which app it belongs to.
    private func classify(_ stream: BackendStream) -> ImplicitSessions.StreamClassificationFacts {
        classifier.classify(stream)
    }

    /// Explicit sessions (created over the session API), with who owns them.
    var explicitSessions: ExplicitSessionBook { sessions.explicit }

    /// The rules in force.
    var ruleSet: RuleSet { classifier.ruleSet }
    /// The rules were read again (a file changed, SIGHUP): a changed set is swapped in
    /// (``reload(_:)``); either way the session API shows how the read went (`Rules`, from
    /// `LiveRules`, which keeps that record).
    func rulesRead(_ ruleSet: RuleSet) {
        if ruleSet == self.ruleSet {
            carryOut([])  // an empty step: the session API shows it
        } else {
            reload(ruleSet)
        }
    }

    private var composition: AppComposition { classifier.composition }

    /// Who a stream's process is (read once per process).
    func processFacts(of stream: BackendStream) -> AppFacts {
        classifier.processFacts(of: stream)
    }

    /// A stream whose facts changed (its properties, its client's, the rules): it moves to its
    /// app's session, or its session is classified again.
    private func restream(_ record: ImplicitSessions.StreamRecord, facts: ImplicitSessions.StreamClassificationFacts) {
        guard facts != record.classification, sessions.isImplicit(record.session) else { return }
        if sessions.apps[record.session] == facts.identity {
            sessions.setClassification(facts, stream: record.stream.id)
            recompose(record.session)
            return
        }
        logger.info("stream \(record.stream.id) moves to app \(facts.identity)")
        let wasActive = record.reportedActive
        streamRemoved(record.stream.id)
        var stream = record.stream
        if !wasActive && stream.activity == .playing { stream.activity = .idle }
        streamAppeared(stream, facts: facts)
    }

    private func streamAppeared(_ stream: BackendStream, facts known: ImplicitSessions.StreamClassificationFacts? = nil) {
        if let explicit = explicitSession(of: stream) {
            sessions.add(stream, to: explicit, classification: known ?? classify(stream))
            routes.routeNewStream(stream, to: engine.route(for: explicit))
            applyEffects(of: explicit, to: stream)
            logger.info("stream \(stream.id) belongs to \(explicit)")
            if stream.activity != .pausedByUser { start(stream) }
            return
        }
        let facts = known ?? classify(stream)
        let (session, isNew) = sessions.session(for: facts.identity)
        sessions.add(stream, to: session, classification: facts)
        if isNew {
            let composed = composition.classify(appStreams(of: session, starting: stream))
            sessions.setComposed(composed, session: session)
            let descriptor = newSessionDescriptor(for: stream, facts: facts, composed: composed)
            submit(.sessionCreated(session, descriptor))
            logger.info("\(session) for '\(stream.appName)': \(describe(composed)) [app \(descriptor.app), \(facts.identity)]")
            if engine.snapshot(of: session)?.isOpening == true { activityWatch.awaitOpening(of: session) }
        }
        updateLevelWatching(session)
        follow(playerControl?.mprisStreamJoined(stream, session: session, in: playerContext))
        routes.routeNewStream(stream, to: engine.route(for: session))
        applyEffects(of: session, to: stream)
        if let request = stream.hardwareRequest,
            let wish = HardwareWish(implying: request, limits: ruleSet.configuration.hardwareLimits)
        {
            logger.info("\(session) prefers \(wish.ioBufferDuration.map { "\($0 * 1000) ms buffers" } ?? "")\(wish.sampleRate.map { " at \(Int($0)) Hz" } ?? "") (what its stream asks for)")
            submit(.setPreferredHardware(session, wish))
        }
        if stream.activity != .pausedByUser, activityWatch.sounds(stream.id) { start(stream) } else if !isNew { recompose(session) }
        if stream.activity == .idle { armIdleTimer(for: stream.id) }
    }

    /// What the engine is told of an app's new implicit session, from its first stream.
    private func newSessionDescriptor(
        for stream: BackendStream, facts: ImplicitSessions.StreamClassificationFacts, composed: AppClassification
    ) -> SessionDescriptor {
        // An app is what its process vouches for (its sandbox, its app unit, its program),
        // whatever application.name its stream states: it cannot claim another app's permission.
        let owner = SessionOwnership.Owner(
            pid: stream.processID ?? 0, sandboxAppID: facts.identity.sandboxAppID, appID: facts.identity.appID)
        return SessionDescriptor(
            kind: .implicit, app: SessionOwnership.app(named: stream.appName, by: owner), label: stream.appName,
            classification: composed.classification, capabilities: backend.interruptionMethods)
    }

    /// A stream the server has just announced, a round-trip before its description. When it
    /// would be a new app's first stream and the engine forecasts that its start interrupts
    /// others by unlinking (a call), the first of them is taken off its devices now
    /// (``PolicyEngine/sessionsUnlinked(byNewSession:starting:at:)``); the stream's appearance
    /// then decides for real, and what it does not hold goes back.
    private func streamAnnounced(_ stream: BackendStream) {
        guard stream.activity != .pausedByUser, explicitSession(of: stream) == nil else { return }
        let facts = classify(stream)
        guard sessions.existingSession(of: facts.identity) == nil else { return }
        let first = AppStream(
            classification: facts.classification, direction: stream.direction, isRunning: true,
            capturesMonitor: stream.capturesMonitor, hasPlayedLong: false)
        let composed = composition.classify([first])
        let descriptor = newSessionDescriptor(for: stream, facts: facts, composed: composed)
        guard let victim = engine.sessionsUnlinked(byNewSession: descriptor, starting: stream.id, at: now).first else { return }
        let streams = sessions.streams(of: victim).map(\.stream.id)
        guard !streams.isEmpty else { return }
        backend.holdAhead(streams, until: stream.id)
        logger.debug("stream \(stream.id) announced as \(describe(composed)): \(victim) held ahead")
    }

    private func streamChanged(_ stream: BackendStream) {
        guard let record = sessions.streams[stream.id] else { return streamAppeared(stream) }
        enforcement.muteReported(backend.isMuted(stream.id), of: stream.id)
        let previous = record.stream.activity
        sessions.update(stream)
        if stream.properties != record.stream.properties || stream.processID != record.stream.processID {
            // Late properties (a role set after the node appeared, a client's info): classify again.
            restream(sessions.streams[stream.id] ?? record, facts: classify(stream))
        }
        guard let record = sessions.streams[stream.id], previous != stream.activity else { return }
        logger.debug("stream \(stream.id): \(previous) → \(stream.activity)")
        if playerControl?.mprisOwnsActivityChange(of: stream, in: record.session) == true { return }
        switch stream.activity {
        case .pausedByUser:
            activityWatch.cancelIdle(stream.id)
            if record.reportedActive || effects[record.session]?.interruption != nil {
                sessions.setReportedActive(false, stream: stream.id)
                submit(.streamPausedByUser(stream.id))
                recompose(record.session)
            }
        case .playing:
            activityWatch.cancelIdle(stream.id)
            activityWatch.streamRuns(stream.id)
            // A stream paused after its output went away is held or muted: a "running" report
            // then is a late echo of our own relinking, not its user playing again (that
            // shows as an uncork, or an MPRIS player's Play once the pause is confirmed).
            let heldForRouteLoss = effects[record.session]?.pausedForRouteLoss == true && previous != .pausedByUser
            if !record.reportedActive, !heldForRouteLoss, activityWatch.sounds(stream.id) { start(stream) }
        case .idle:
            if previous == .pausedByUser {
                start(stream)  // un-paused; it runs as soon as it is linked
            }
            if effects[record.session]?.isHeld != true { armIdleTimer(for: stream.id) }
        }
    }

    private func streamRemoved(_ id: StreamID) {
        activityWatch.forget(id)
        sessions.explicit.forgetClaim(of: id)
        enforcement.streamRemoved(id)
        follow(routes.streamRemoved(id))
        guard let (record, sessionEmpty) = sessions.remove(stream: id) else { return }
        if record.reportedActive { submit(.streamStopped(id)) }
        guard sessions.isImplicit(record.session) else { return }  // explicit sessions outlive their streams
        if sessionEmpty {
            submit(.sessionRemoved(record.session))
            sessions.removeSession(record.session)
            effects.remove(record.session)
        } else {
            recompose(record.session)
        }
    }

    func start(_ stream: BackendStream) {
        guard let record = sessions.streams[stream.id] else { return }
        sessions.setReportedActive(true, stream: stream.id)
        recompose(record.session)  // before the start: a call interrupts from its first stream
        submit(.streamStarted(record.session, stream.id))
        if stream.direction == .playback, !record.hasPlayedLong, sessions.isImplicit(record.session),
            record.classification.classification == composition.unclassified
        {
            activityWatch.awaitLongPlay(stream.id)
        }
    }

    /// A playback stream no rule classifies ran past ``AppBehaviour/shortSoundLimit`` without a
    /// stop: no short sound, its app is classified again (media playback).
    private func longPlayOver(_ id: StreamID) {
        activityWatch.longPlayOver(id)
        guard let record = sessions.streams[id], record.reportedActive else { return }
        sessions.setPlayedLong(stream: id)
        recompose(record.session)
    }

    /// Reports a running stream stopped (idle or silent past its grace, or held).
    func stop(_ id: StreamID) {
        guard let record = sessions.streams[id], record.reportedActive else { return }
        activityWatch.cancelLongPlay(id)
        sessions.setReportedActive(false, stream: id)
        submit(.streamStopped(id))
        recompose(record.session)
    }

    /// The streams of an app as its classification sees them; `starting` counts as running.
    private func appStreams(of session: SessionID, starting: BackendStream? = nil) -> [AppStream] {
        sessions.streams(of: session).map { record in
            AppStream(
                classification: record.classification.classification, direction: record.stream.direction,
                isRunning: record.reportedActive || (record.stream.id == starting?.id && starting?.activity != .pausedByUser),
                capturesMonitor: record.stream.capturesMonitor, hasPlayedLong: record.hasPlayedLong)
        }
    }

    /// Classifies an implicit session again from its streams; tells the engine when it changed.
    /// A call that stops being one while it still runs waits ``AppBehaviour/callHoldover``
    /// first (``AppComposition/holdsOver(from:to:streams:)``).
    func recompose(_ session: SessionID, holdingOver: Bool = true) {
        guard let current = sessions.composed[session] else { return }
        let streams = appStreams(of: session)
        let composed = composition.classify(streams)
        guard composed != current else { return }
        if holdingOver, AppComposition.holdsOver(from: current, to: composed, streams: streams) {
            activityWatch.holdOver(session)  // judged again once it is over (``DueWork/holdoverOver(_:)``)
            return
        }
        activityWatch.cancelHoldover(session)
        sessions.setComposed(composed, session: session)
        logger.info("\(session) re-classified: \(describe(composed))")
        submit(.reclassify(session, composed.classification))
        updateLevelWatching(session)
    }

    /// An app the rules say nothing about was spared while it opened its streams; after
    /// ``AppBehaviour/openingWindow`` it is judged like any other.
    private func openingOver(_ session: SessionID) {
        guard engine.snapshot(of: session)?.isOpening == true else { return }
        logger.info("\(session) has opened its streams: judged like any other app")
        submit(.openingEnded(session))
    }

    // MARK: - Levels

    /// Watches the level of a session's playback streams while it ducks others; stops when it
    /// no longer does (a stream no longer watched counts as running when it runs).
    private func updateLevelWatching(_ session: SessionID) {
        let watch = sessions.composed[session].map { activityWatch.quietness.watchesLevel(of: $0.classification) } ?? false
        for record in sessions.streams(of: session) where record.stream.direction == .playback {
            let id = record.stream.id
            if watch {
                activityWatch.watchLevel(of: id)
            } else if activityWatch.stopWatchingLevel(of: id) {
                if record.stream.activity == .playing, !record.reportedActive { start(record.stream) }
            }
        }
    }

    /// A meter that reports nothing in its patience (it could not listen) must not cost the
    /// stream its effect: it is judged by whether it runs from then on.
    private func meterPatienceOver(_ id: StreamID) {
        guard activityWatch.meterSaidNothing(id), let record = sessions.streams[id] else { return }
        guard record.stream.activity == .playing else { return activityWatch.meterPatienceSpentIdle(id) }
        logger.info("stream \(id): no level reported in \(activityWatch.quietness.meterPatience): judged by whether it runs")
        activityWatch.stopWatchingLevel(of: id)
        if !record.reportedActive, effects[record.session]?.isHeld != true { start(record.stream) }
    }

    /// The meter heard a watched stream start or stop sounding.
    /// A stream that may not leave its device plays on through its session's hold: the engine
    /// chooses the interruption method that takes over.
    private func holdRefused(_ id: StreamID) {
        guard let record = sessions.streams[id], effects[record.session]?.interruption == .unlink else { return }
        logger.info("stream \(id) of \(record.session) refuses to be held")
        submit(.interruptionMethodFailed(record.session, .unlink))
    }

    private func streamAudible(_ id: StreamID, _ audible: Bool) {
        guard activityWatch.heard(id, audible: audible), let record = sessions.streams[id] else { return }
        logger.debug("stream \(id) heard \(audible ? "sounding" : "silent") (\(record.stream.activity))")
        if audible {
            activityWatch.cancelIdle(id)
            if !record.reportedActive, record.stream.activity == .playing, effects[record.session]?.isHeld != true {
                logger.debug("stream \(id) audible: runs")
                start(record.stream)
            }
        } else if record.reportedActive, effects[record.session]?.isHeld != true {
            armIdleTimer(for: id)
        }
    }

    private func dropAllStreams() {
        activityWatch.forgetAll()  // enforcement forgot every stream already (`lost`)
        for id in sessions.streams.keys.sorted() {
            if let record = sessions.streams[id], !sessions.isImplicit(record.session) {
                _ = sessions.remove(stream: id)  // an explicit session's stream: the session stays
                if record.reportedActive { submit(.streamStopped(id)) }
            }
        }
        for session in sessions.sessionIDs {
            for record in sessions.streams(of: session) { _ = sessions.remove(stream: record.stream.id) }
            submit(.sessionRemoved(session))
            sessions.removeSession(session)
            effects.remove(session)
        }
        classifier.forgetProcesses()
    }

    // MARK: - Idle detection

    private func armIdleTimer(for id: StreamID) {
        let record = sessions.streams[id]
        activityWatch.armIdle(id, classification: record.flatMap { sessions.composed[$0.session]?.classification })
    }

    private func idleGraceExpired(_ id: StreamID) {
        activityWatch.idleGraceOver(id)
        // Idle because we hold it or paused its player is not stopped: the idle moment may
        // have come just before our pause (a call's rate switch), with its timer still running.
        guard let record = sessions.streams[id], record.stream.activity == .idle || !activityWatch.sounds(id),
            record.reportedActive, effects[record.session]?.isHeld != true,
            effects[record.session]?.isPausedForInterruption != true
        else { return }
        if engine.awaitsProfileSwitch(record.session) {
            // Unlinked while its device switches profile: judged again once the switch is over.
            return armIdleTimer(for: id)
        }
        logger.debug("stream \(id) idle or silent past its grace: stopped")
        stop(id)
    }

    // MARK: - Decisions

    /// Hands one event to the engine and carries out its decisions, after what is queued;
    /// returns them. Inside a run (a decision's carrying out caused the event) they are queued
    /// behind what it is carrying out.
    @discardableResult
    func submit(_ event: PolicyEvent) -> [PolicyDecision] {
        let decisions = engine.handle(event, at: now)
        carryOut(decisions)
        return decisions
    }

    /// Queues an engine step's decisions and runs the queue.
    func carryOut(_ decisions: [PolicyDecision]) {
        steps.countEngineStep()  // every engine step (events, reconfiguration) ends here
        steps.append(decisions)
        run()
    }

    /// Carries out what the queue holds, in order: the one place decisions are carried out.
    /// Does nothing inside a run (the run gets to what was queued). In a server event's turn,
    /// once holds wait to be sent, the rest is left for the loop's next turn.
    private func run() {
        guard steps.beginRun() else { return }
        steps.openStep()
        defer {
            steps.endRun()
            endStep()
        }
        var nowPlayingTouched = false
        while let item = steps.next() {
            switch item {
            case .decision(let decision):
                carryOut(decision)
                if let playerControl { follow(playerControl.mprisCarryOut(decision, in: playerContext)) }
                announce(decision)
                if case .nowPlayingChanged = decision { nowPlayingTouched = true }
                if let id = decision.session, id == engine.nowPlaying { nowPlayingTouched = true }
            case .due(let work):
                carryOutDueWork(work)
            }
            if steps.yields(holdsWaiting: backend.holdsWaiting) {
                loop.performLater { [weak self] in self?.catchUp() }
                break
            }
        }
        if nowPlayingTouched { refreshNowPlaying() }
        // Links last: a session paused for its lost route in the same step is held before its
        // new route could link it (routes: Routes/RouteExecution.swift). With decisions left
        // for later, after those.
        if steps.isEmpty { routes.applyPendingRoutes(sessions: sessions, systemRoute: engine.systemRoute) }
    }

    /// Carries out what was left for later, in order, before anything else.
    func catchUp() {
        guard !steps.isEmpty else { return }
        run()
    }

    /// Hands `decision` to the observer: in the loop's next turn when it comes of an audio
    /// server event, else now (after any kept back, in order).
    private func announce(_ decision: PolicyDecision) {
        guard let decisionObserver = steps.hooks.decision else { return }
        guard steps.announcesNow(decision) else { return }  // in serverEventsHandled()
        for earlier in steps.takeUnannounced() { decisionObserver(earlier) }
        decisionObserver(decision)
    }

    /// The Now Playing player's properties (a D-Bus signal, ~0.2 ms): like announcements, later
    /// in the loop's turn when they change with an audio server event, after our reaction to it
    /// has been sent.
    private func refreshNowPlaying() {
        guard let nowPlayingChanged = steps.hooks.nowPlayingChanged, steps.refreshesNowPlayingNow() else { return }
        nowPlayingChanged(nowPlaying)
    }

    /// The loop's turn after audio server events: what they sent has gone out, and now what
    /// describes them does — their log lines, their decisions on the bus, Now Playing.
    private func serverEventsHandled() {
        LogOutput.standardError.release()
        let (decisions, nowPlayingStale) = steps.takeTurnEnd()
        let hooks = steps.hooks
        for decision in decisions { hooks.decision?(decision) }
        if nowPlayingStale { hooks.nowPlayingChanged?(nowPlaying) }
    }

    /// One open step is done; after the outermost, the journal is written (once, however many
    /// engine steps an event caused), before the loop sends what they changed.
    private func endStep() {
        if steps.closeStep() { enforcement.stepDone() }
    }

    private func carryOut(_ decision: PolicyDecision) {
        switch decision {
        case .interruptionBegan(let id, let reason, let method):
            logger.info("\(id) interrupted (\(reason.wireName), by \(method.wireName))")
            update(id) {
                $0.interruption = method
                $0.enforcedAfterGrace = false
            }
            if method == .sessionAPI { effects.awaitGrace(of: id) }
        case .interruptionEnded(let id, let options, let method):
            logger.info("\(id) interruption ended (\(options.contains(.shouldResume) ? "shouldResume" : "no resume"), was \(method.wireName))")
            effects.cancelGrace(id)
            update(id) {
                $0.interruption = nil
                $0.enforcedAfterGrace = false
            }
        case .setGain(let id, let gain, let ramp):
            logger.info("\(id) gain → \(gain) over \(ramp)")
            update(id, ramp: ramp) { $0.duckGain = gain }
        case .setSilenced(let id, let silenced):
            logger.info("\(id) \(silenced ? "silenced" : "unsilenced") (silent mode, screen lock or a recording)")
            update(id) { $0.silenced = silenced }
        case .setCaptureSilenced(let id, let silenced):
            logger.info("\(id) capture \(silenced ? "silenced" : "restored") (record permission)")
            update(id) { $0.captureSilenced = silenced }
        case .setHardware(let choice):
            enforcement.hardware.apply(choice)
        case .applyInputGain(let device, let gain):
            enforcement.inputGains.apply(gain, to: device)
        case .selectDataSource(let device, let source):
            enforcement.dataSources.apply(source, to: device)
        case .failed(let id, let error):
            logger.warning("\(id): \(error)")
        case .activated(let id), .deactivated(let id):
            logger.debug("\(id) \(decision == .activated(id) ? "active" : "inactive")")
            if decision == .activated(id) { follow(routes.routeLossEnded(id, effects: effects[id], route: engine.route(for: id))) }
            // Either closes an interruption without an ended: stop holding or muting it.
            if effects[id]?.interruption != nil {
                effects.cancelGrace(id)
                update(id) {
                    $0.interruption = nil
                    $0.enforcedAfterGrace = false
                }
            }
        case .link(let id, let route):
            routes.routeDecided(id, route)
        case .routeChanged(let id, let reason, let previous):
            routes.routeChanged(id, reason: reason, previous: previous, current: engine.route(for: id) ?? .empty)
        case .pauseForRouteLoss(let id, let method):
            follow(routes.pauseForRouteLoss(id, method: method, streams: sessions.streams(of: id).map(\.stream.id)))
        case .nowPlayingChanged(let id):
            logger.info("now playing: \(id.map { "\($0) '\(engine.snapshot(of: $0)?.label ?? "?")'" } ?? "none")")
        case .selectHeadsetProfile(let device, let profile):
            enforcement.headsetProfiles.apply(profile, to: device)
        case .recheckHeadsets(let delay):
            inbox.later(delay, .engineEvent(.headsetRecheckDue))
        case .headsetProfileContested(let device):
            enforcement.headsetProfiles.yield(device)
            logger.warning("""
                \(device): another program took it out of its call profile \(PolicyEngine.headsetContestLimit) times \
                during this call; it stays as they chose until the call ends (who switches headsets: \
                bluetooth.profile-switching in policy-rules)
                """)
        case .awaitProfileSwitch(let device, let number, let bound):
            logger.info("\(device) is switching profile: its new ports take the old ones' place (within \(bound))")
            inbox.later(bound, .engineEvent(.profileSwitchEnded(device: device, switch: number)))
        case .secondaryAudioHint, .reportHardware, .mediaServicesLost, .mediaServicesReset, .outputVolumeChanged,
             .inputGainChanged:
            logger.debug("decision: \(decision)")
        }
    }

    /// An app told of its interruption over the session API had its grace: its streams are held.
    private func interruptionGraceOver(_ id: SessionID) {
        guard effects.graceOver(id) else { return }
        logger.info("\(id) had its grace: holding its streams")
        update(id) { $0.enforcedAfterGrace = true }
    }

    // MARK: - Follow-ups

    /// Carries out what a component returned, in order. An engine event's decisions, and work
    /// that must come after, join the queue: inside a run they are carried out after what it
    /// holds, outside one at once.
    private func follow(_ followUps: [FollowUp]?) {
        guard let followUps else { return }
        for followUp in followUps {
            switch followUp {
            case .submit(let event):
                submit(event)
            case .markReported(let id, let active):
                sessions.setReportedActive(active, stream: id)
            case .start(let id):
                if let record = sessions.streams[id] { start(record.stream) }
            case .routeLoss(let id, let method):
                update(id) { $0.routeLoss = method }
            case .capabilitiesChanged(let id):
                submit(.capabilitiesChanged(id, interruptionMethods(of: id)))
            case .refreshNowPlaying:
                let nowPlayingChanged = steps.hooks.nowPlayingChanged
                nowPlayingChanged?(nowPlaying)
            case .then(let work):
                enqueue(work)
            }
        }
    }

    /// A component's timer or answer, back on the loop: one step, like an event.
    private func dueWorkArrived(_ work: DueWork) {
        loop.assertConfined("the policy coordinator")
        enqueue(work)
    }

    /// Queues `work` behind what is queued, and runs the queue.
    private func enqueue(_ work: DueWork) {
        steps.append(work)
        run()
    }

    private func carryOutDueWork(_ work: DueWork) {
        switch work {
        case .routeLossCheck(let id, let since):
            follow(routes.checkPlayersPaused(
                id, since: since, effects: effects[id], players: playerControl?.mprisPlayerStatuses(of: id, in: sessions)))
        case .leftoverAsked(let entry, let ids):
            playerControl?.mprisDecideAsked(
                entry, sessions: ids, interrupted: ids.filter { engine.snapshot(of: $0)?.activity == .interrupted })
        case .idleGraceOver(let id):
            idleGraceExpired(id)
        case .longPlayOver(let id):
            longPlayOver(id)
        case .holdoverOver(let session):
            activityWatch.holdoverOver(session)
            recompose(session, holdingOver: false)
        case .openingOver(let session):
            openingOver(session)
        case .meterPatienceOver(let id):
            meterPatienceOver(id)
        case .interruptionGraceOver(let id):
            interruptionGraceOver(id)
        case .engineEvent(let event):
            submit(event)
        case .pauseUnconfirmed, .resumeGraceOver, .withheldActivity, .withheldIdle, .pressFailed:
            follow(playerControl?.due(work, in: playerContext))
        }
    }

    /// Changes a session's effects and brings each of its streams in line.
    func update(_ id: SessionID, ramp: Duration = .zero, _ change: (inout SessionEffects) -> Void) {
        for held in effects.update(id, streams: sessions.streams(of: id), ramp: ramp, change) {
            activityWatch.cancelIdle(held)  // held is not idle
        }
    }

    private func applyEffects(of session: SessionID, to stream: BackendStream) {
        if effects.applySession(session, to: stream) { activityWatch.cancelIdle(stream.id) }
    }

    private func describe(_ composed: AppClassification) -> String {
        describe(composed.classification) + (composed.reason == .rules ? "" : " (\(composed.reason.explanation))")
    }

    private func describe(_ classification: Classification) -> String {
        var text = "\(classification.category.wireName)"
        if classification.mode != .default { text += "/\(classification.mode.wireName)" }
        if !classification.options.isEmpty { text += " [\(classification.options.wireNames.joined(separator: ","))]" }
        return text + " class \(classification.priorityClass.name)"
    }
}
