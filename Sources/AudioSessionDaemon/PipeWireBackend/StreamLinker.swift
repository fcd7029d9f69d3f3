#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PipeWireGraph
import SessionPolicy

/// Carries out the linking policy on PipeWire: keeps every audio stream linked to the devices
/// its session's route names (the engine's `.link` decisions: last in wins, multiRoute,
/// override, preferred input), and keeps the `default` metadata's effective defaults current.
///
/// A target the stream or a mixer named (`target.object`, metadata) wins while it exists, as
/// ``LinkTargetResolver`` says; a stream the policy has not routed yet (or whose route's devices
/// are gone) follows the effective default. It reacts to graph events and reconciles: for each
/// affected stream, the wanted devices are computed from the snapshot and the stream's links are
/// made to match. Links it makes belong to the daemon's connection, so they disappear with the
/// daemon; nothing is left behind.
///
/// While another session manager links (``Coexistence``) it is inactive: it keeps the
/// policy's routes and defaults, and touches nothing.
///
/// Every call comes from the graph observer, on PipeWire's loop thread (``LoopBound``).
final class StreamLinker: Sendable {
    private let graph: PipeWireGraph
    private let logger: Logger
    private struct State {
        /// Whether it links now.
        var isActive: Bool
        var configuredDefaults: ConfiguredDefaults
        /// We exported the `default` metadata and have not put the saved choices back yet.
        var restoreConfiguredDefaults = false
        /// The devices each stream is linked to by us.
        var linked: [GlobalID: Set<GlobalID>] = [:]
        /// The devices the policy routes each stream to (its session's route).
        var routes: [GlobalID: [GlobalID]] = [:]
        /// Streams linked to a target they (or a mixer) named, and that device.
        var pinned: [GlobalID: GlobalID] = [:]
        /// The policy's default devices (the route of a session with no wishes), by direction.
        var preferredDefaults: [StreamDirection: GlobalID] = [:]
        var configuresDevicePorts: Bool
        /// Streams and devices we already asked to create their ports.
        var portsRequested: Set<GlobalID> = []
        /// False until the first registry burst is complete: reconciling half a graph would move
        /// streams to whatever device happened to be announced first.
        var ready = false
        var providedDefaultMetadata = false
        /// Streams the policy holds (interrupted by unlinking): kept off every device until released.
        var held: Set<GlobalID> = []
        /// Held ahead of a stream's appearance (``holdAhead(_:until:in:)``), by the stream they wait
        /// for: the policy's own holds keep them; the rest go back when it has appeared.
        var heldAhead: [GlobalID: GlobalID] = [:]
        /// Links we asked PipeWire to destroy, by their stream: asked once each, so a link the
        /// mirror still shows (its removal not yet seen) is not destroyed again on every event of
        /// its stream; and a released stream is linked again only once they are all gone.
        var unlinking: [GlobalID: Set<GlobalID>] = [:]
        /// The devices and effective defaults, until a device, the `default` metadata or the
        /// policy's defaults change: most events (a stream's ports, links, state) change none of
        /// them, and reading them walks every node.
        var knownDevices: Devices?
        var reconciledInputs: [GlobalID: ReconciledInputs] = [:]
        /// What each stream was last linked with (``LinkSignature``).
        var linkSignatures: [GlobalID: LinkSignature] = [:]
        /// Streams just released: linking them back where they were is logged at debug level.
        var relinking: Set<GlobalID> = []
        /// What the graph event being handled asks to reconcile, done once at its end
        /// (``beginEvent()``, ``endEvent(in:)``): the policy's reaction to an event (routes, holds,
        /// releases) and the event itself reach each stream once.
        var pending: PendingWork?
    }

    private let state: LoopBound<State>

    /// Whether it links now.
    var isActive: Bool { state.isActive }
    /// The user's chosen defaults, put back into the `default` metadata we provide.
    private let configuredDefaultsFile: JournalFile<ConfiguredDefaults>
    /// Whether it gives devices their DSP ports before linking them: while no other session
    /// manager does (``Coexistence/configuresDevicePorts``). Streams get theirs from whoever
    /// links them.
    var configuresDevicePorts: Bool {
        get { state.configuresDevicePorts }
        set {
            let before = state.configuresDevicePorts
            state.configuresDevicePorts = newValue
            guard newValue, !before, state.ready else { return }
            configureDevicePorts(in: graph.snapshot)
            reconcileAll(in: graph.snapshot)
        }
    }
    /// A stream's properties (where its target is named) and port count at its last
    /// reconciliation: equal dictionaries sharing storage compare in O(1).
    private struct ReconciledInputs {
        let properties: [String: String]
        let ports: Int
    }


    private struct PendingWork {
        /// In the order they were asked for: the policy's holds come before the event's own
        /// linking, so the silence goes out first, as it did when holds were carried out at once.
        var streams: [GlobalID] = []
        var queued: Set<GlobalID> = []
        var everyStream = false
        var defaults = false
        /// Among `streams`, some are to be held.
        var holds = false

        mutating func add(_ stream: GlobalID) {
            if queued.insert(stream).inserted { streams.append(stream) }
        }
    }

    init(graph: PipeWireGraph, loop: DaemonLoop, active: Bool, stateDirectory: URL, logger: Logger) {
        self.graph = graph
        self.logger = logger
        configuredDefaultsFile = JournalFile(directory: stateDirectory, logger: logger)
        state = LoopBound(
            State(isActive: active, configuredDefaults: configuredDefaultsFile.read(), configuresDevicePorts: active), on: loop)
    }

    // MARK: - Who links

    /// Starts linking (no other session manager now): every stream is linked where the policy
    /// says, and the `default` metadata is provided if nobody does.
    func activate(in snapshot: GraphSnapshot, attached: Bool) {
        guard !state.isActive else { return }
        state.isActive = true
        state.knownDevices = nil
        if attached { handle(.initialSyncComplete, in: snapshot) }
    }

    /// Stops linking (another session manager links now): the links we made between streams
    /// and devices are destroyed, so that it links those streams itself — WirePlumber 0.5
    /// neither links a stream someone else linked nor re-creates links someone else removed,
    /// so links of ours left in place would go silent with us. Our `default` metadata stays
    /// until the policy withdraws it (``withdrawDefaultMetadata()``).
    func deactivate(in snapshot: GraphSnapshot) {
        guard state.isActive else { return }
        state.isActive = false
        state.ready = false
        var destroyed = 0
        state.unlinking.removeAll()
        for link in snapshot.links.values where isOurs(link, in: snapshot) && Self.joinsStreamAndDevice(link, in: snapshot) {
            graph.unlink(link.id)
            destroyed += 1
            // Linking is taken back at once when the other manager turns out to link nothing:
            // a stream is linked again only once these are gone (a link to the same ports
            // would be refused while they exist, and then they go).
            for stream in [link.outputNode, link.inputNode] where snapshot.nodes[stream].flatMap(GraphEndpoints.streamDirection) != nil {
                state.unlinking[stream, default: []].insert(link.id)
            }
        }
        logger.info("handing linking over: \(destroyed) links of ours destroyed")
        state.linked.removeAll()
        state.pinned.removeAll()
        state.held.removeAll()
        state.heldAhead.removeAll()
        state.relinking.removeAll()
        state.linkSignatures.removeAll()
        state.reconciledInputs.removeAll()
        state.portsRequested.removeAll()
        state.knownDevices = nil
    }

    /// Withdraws the `default` metadata we provided, if we did: another session manager
    /// provides its own. The user's chosen devices in ours go into its metadata where it has
    /// none (WirePlumber may have restored its saved choices into ours).
    func withdrawDefaultMetadata() {
        guard state.providedDefaultMetadata else { return }
        state.providedDefaultMetadata = false
        state.restoreConfiguredDefaults = false
        graph.withdrawMetadata(named: GraphEndpoints.defaultMetadata, handingOver: GraphEndpoints.configuredKeys)
    }

    /// A link made by this process (on either of its connections).
    private func isOurs(_ link: Link, in snapshot: GraphSnapshot) -> Bool {
        guard let client = link.properties["client.id"].flatMap(GlobalID.init) else { return false }
        return GraphEndpoints.isOwn(snapshot.clients[client])
    }

    /// A stream's link to or from a device (not a level meter's).
    private static func joinsStreamAndDevice(_ link: Link, in snapshot: GraphSnapshot) -> Bool {
        guard let output = snapshot.nodes[link.outputNode], let input = snapshot.nodes[link.inputNode] else { return false }
        return (GraphEndpoints.streamDirection(of: output) != nil && GraphEndpoints.endpointDirection(of: input) != nil)
            || (GraphEndpoints.endpointDirection(of: output) != nil && GraphEndpoints.streamDirection(of: input) != nil)
    }

    func handle(_ event: GraphEvent, in snapshot: GraphSnapshot) {
        if Self.mayChangeDevices(event) { state.knownDevices = nil }
        switch event {
        case .connected, .disconnected:
            state.linked.removeAll()
            state.routes.removeAll()
            state.pinned.removeAll()
            state.preferredDefaults.removeAll()
            state.unlinking.removeAll()
            state.portsRequested.removeAll()
            state.held.removeAll()
            state.heldAhead.removeAll()
            state.relinking.removeAll()
            state.linkSignatures.removeAll()
            state.reconciledInputs.removeAll()
            state.ready = false
            state.providedDefaultMetadata = false
            state.restoreConfiguredDefaults = false
        case .initialSyncComplete:
            guard state.isActive else { return }
            state.ready = true
            ensureDefaultMetadata(in: snapshot)
            configureDevicePorts(in: snapshot)
            reconcileAll(in: snapshot)
        case .added(let object):
            guard state.ready else { return }
            objectAppearedOrChanged(object, isNew: true, in: snapshot)
        case .changed(let object):
            guard state.ready else { return }
            objectAppearedOrChanged(object, isNew: false, in: snapshot)
        case .removed(let object):
            guard state.ready else {
                // The links destroyed when linking was handed over are counted out even now.
                if case .link(let link) = object { linkRemoved(link, in: snapshot) }
                return
            }
            objectRemoved(object, in: snapshot)
        case .metadataChanged(let name, let subject, let key, let value):
            rememberConfiguredDefault(name: name, subject: subject, key: key, value: value)
            guard state.ready else { return }
            metadataChanged(name: name, subject: subject, key: key, in: snapshot)
        case .levelChanged, .clocksSampled, .announced, .announcementWithdrawn:
            break
        }
    }

    // MARK: - Events

    /// Whether the event can change the devices or the effective defaults (``Devices``).
    private static func mayChangeDevices(_ event: GraphEvent) -> Bool {
        switch event {
        case .connected, .disconnected, .initialSyncComplete:
            true
        case .added(.node(let node)), .changed(.node(let node)), .removed(.node(let node)):
            GraphEndpoints.endpointDirection(of: node) != nil
        case .added(.metadata(let metadata)), .changed(.metadata(let metadata)), .removed(.metadata(let metadata)):
            metadata.name == GraphEndpoints.defaultMetadata
        case .metadataChanged(let name, _, _, _):
            name == GraphEndpoints.defaultMetadata
        default:
            false
        }
    }

    private func objectAppearedOrChanged(_ object: GraphObject, isNew: Bool, in snapshot: GraphSnapshot) {
        switch object {
        case .node(let node):
            if GraphEndpoints.streamDirection(of: node) != nil {
                // A stream's state or volume changed (its properties and ports did not): that
                // moves no link. During a duck this is every ramp step's echo.
                if !isNew, !state.held.contains(node.id), let inputs = state.reconciledInputs[node.id],
                    inputs.properties == node.properties, inputs.ports == snapshot.portCount(of: node.id)
                {
                    return
                }
                reconcile(streamID: node.id, in: snapshot)
            } else if isNew, GraphEndpoints.endpointDirection(of: node) != nil {
                // A device's state changes (running, idle) do not move streams; its arrival may.
                configurePortsIfNeeded(of: node, in: snapshot)
                reconcileAll(in: snapshot)
            }
        case .port(let port):
            // Ports arrive after their node: a stream's or a device's ports make links possible.
            guard let node = snapshot.nodes[port.nodeID] else { return }
            if GraphEndpoints.streamDirection(of: node) != nil {
                reconcile(streamID: node.id, in: snapshot)
            } else if GraphEndpoints.endpointDirection(of: node) != nil {
                reconcileAll(in: snapshot)
            }
        case .metadata(let metadata) where metadata.name == GraphEndpoints.defaultMetadata:
            if isNew { putBackConfiguredDefaults(into: metadata) }
            reconcileAll(in: snapshot)
        case .link(let link) where isNew:
            // A held stream got a link after all: one of ours that was still being created when
            // the hold came, or someone else's. It is taken off again at once.
            for stream in [link.outputNode, link.inputNode] where state.held.contains(stream) {
                unlinkEverything(of: stream, in: snapshot)
            }
        default:
            break
        }
    }

    private func objectRemoved(_ object: GraphObject, in snapshot: GraphSnapshot) {
        if case .link(let link) = object { linkRemoved(link, in: snapshot) }
        // The `default` metadata went while we link: ours, withdrawn when linking was handed
        // over and taken back before its removal was seen (it was still there to find then), or
        // another provider's, gone. Pulse clients and mixers need one: we provide it.
        if case .metadata(let metadata) = object, metadata.name == GraphEndpoints.defaultMetadata {
            ensureDefaultMetadata(in: snapshot)
        }
        guard case .node(let node) = object else { return }
        if GraphEndpoints.streamDirection(of: node) != nil {
            state.linked[node.id] = nil
            state.routes[node.id] = nil
            state.pinned[node.id] = nil
            state.portsRequested.remove(node.id)
            state.held.remove(node.id)
            state.heldAhead[node.id] = nil
            state.relinking.remove(node.id)
            state.linkSignatures[node.id] = nil
            state.reconciledInputs[node.id] = nil
            state.unlinking[node.id] = nil
        } else if GraphEndpoints.endpointDirection(of: node) != nil {
            state.portsRequested.remove(node.id)
            // The device's links died with it: its streams move to their new target.
            for stream in state.linked.keys { state.linked[stream]?.remove(node.id) }
            reconcileAll(in: snapshot)
        }
    }

    private func metadataChanged(name: String, subject: GlobalID, key: String?, in snapshot: GraphSnapshot) {
        guard name == GraphEndpoints.defaultMetadata else { return }
        if let key, key.hasPrefix("target."), snapshot.nodes[subject] != nil {
            reconcile(streamID: subject, in: snapshot)
        } else {
            reconcileAll(in: snapshot)
        }
    }

    // MARK: - Devices' ports

    /// Without a session manager, a device's adapter has no DSP ports to link (PipeWire 1.x
    /// leaves even a null sink's `adapter.auto-port-config` undone, with a converter's single
    /// port): a session manager gives them, as WirePlumber's audio adapter items do.
    private func configureDevicePorts(in snapshot: GraphSnapshot) {
        for node in snapshot.nodes.values where GraphEndpoints.endpointDirection(of: node) != nil {
            configurePortsIfNeeded(of: node, in: snapshot)
        }
    }

    /// We asked for the device's DSP ports and they are not there yet.
    private func awaitsPorts(_ device: GlobalID, in snapshot: GraphSnapshot) -> Bool {
        guard state.portsRequested.contains(device), let node = snapshot.nodes[device] else { return false }
        return !snapshot.hasDSPPorts(node)
    }

    /// Asks once for a device's DSP ports when it has none. The graph looks again after a round
    /// trip, and leaves a device whose ports came meanwhile (they come a moment after it) alone.
    private func configurePortsIfNeeded(of device: Node, in snapshot: GraphSnapshot) {
        guard state.isActive, configuresDevicePorts, !snapshot.hasDSPPorts(device), state.portsRequested.insert(device.id).inserted
        else { return }
        logger.debug("giving device \(device.id) ('\(device.name)') its DSP ports")
        graph.configurePorts(node: device.id, unlessItHasDSPPorts: true)
    }

    // MARK: - Routes (the policy's choice)

    /// Routes a stream to exactly these devices (its session's route); reconciles it now.
    func follow(_ stream: GlobalID, to devices: [GlobalID], in snapshot: GraphSnapshot) {
        guard state.routes[stream] != devices else { return }
        state.routes[stream] = devices
        guard state.ready else { return }
        reconcile(streamID: stream, in: snapshot)
    }

    /// The devices a session with no wishes goes to now: published as the effective defaults.
    func preferDefaults(output: GlobalID?, input: GlobalID?, in snapshot: GraphSnapshot) {
        let wanted: [StreamDirection: GlobalID] = [.playback: output, .capture: input].compactMapValues { $0 }
        guard wanted != state.preferredDefaults else { return }
        state.preferredDefaults = wanted
        state.knownDevices = nil
        guard state.ready else { return }
        if state.pending != nil {
            state.pending?.defaults = true
            return
        }
        publishEffectiveDefaults(in: snapshot)
    }

    // MARK: - Holding (interruption by unlinking)

    /// Takes a stream off its device and keeps it off: its app's clock stops, it freezes.
    func hold(_ stream: GlobalID, in snapshot: GraphSnapshot) {
        state.heldAhead[stream] = nil  // held ahead: the policy's hold now
        guard state.isActive, state.held.insert(stream).inserted else { return }
        // Per stream at debug: a call holds every music stream; the coordinator logs the session.
        logger.debug("holding stream \(stream): unlinked until released")
        state.linked[stream] = nil
        state.linkSignatures[stream] = nil
        if state.pending != nil {
            state.pending?.add(stream)  // reconciling a held stream unlinks it
            state.pending?.holds = true
            return
        }
        unlinkEverything(of: stream, in: snapshot)
    }

    /// Holds streams the policy expects to hold once `trigger` (announced, not yet described)
    /// appears: its first victims go off their devices a round-trip sooner. Streams held already
    /// are left as they are.
    func holdAhead(_ streams: [GlobalID], until trigger: GlobalID, in snapshot: GraphSnapshot) {
        var first = true
        for stream in streams where state.isActive && !state.held.contains(stream) {
            hold(stream, in: snapshot)
            state.heldAhead[stream] = trigger
            // The first goes off at once, not at the end of the event: nothing else is asked first.
            if first, state.pending != nil { unlinkEverything(of: stream, in: snapshot) }
            first = false
        }
    }

    /// `trigger` has appeared and the policy has judged it (or it went before it could): what
    /// was held ahead for it and not held by the policy since goes back on its devices.
    func settleHoldsAhead(of trigger: GlobalID, in snapshot: GraphSnapshot) {
        let released = state.heldAhead.filter { $0.value == trigger }.keys.sorted()
        guard !released.isEmpty else { return }
        logger.debug("stream \(trigger) was not the call it looked like: giving back \(released)")
        for stream in released { release(stream, in: snapshot) }  // forgets it as held ahead
    }

    /// Whether anything waits for `trigger` to appear.
    func holdsAhead(of trigger: GlobalID) -> Bool { state.heldAhead.values.contains(trigger) }

    /// Holds wait for the end of the graph event being handled (``endEvent(in:)``).
    var holdsWaiting: Bool { state.pending?.holds == true }

    /// The device a stream plays on because it named it (not its session's route), if any.
    func pinnedDevice(of stream: GlobalID) -> GlobalID? { state.pinned[stream] }

    /// Whether the policy holds the stream (tests and logs).
    func isHeld(_ stream: GlobalID) -> Bool { state.held.contains(stream) }

    /// Lets a held stream be linked again, where the linking policy says.
    func release(_ stream: GlobalID, in snapshot: GraphSnapshot) {
        state.heldAhead[stream] = nil
        guard state.held.remove(stream) != nil else { return }
        logger.debug("releasing stream \(stream)")
        state.relinking.insert(stream)
        reconcile(streamID: stream, in: snapshot)
    }

    private func unlinkEverything(of stream: GlobalID, in snapshot: GraphSnapshot) {
        for link in snapshot.links(of: stream) where state.unlinking[stream, default: []].insert(link.id).inserted {
            logger.debug("unlinking \(link.id) (\(link.outputNode) → \(link.inputNode)) of held stream \(stream)")
            graph.unlink(link.id)
        }
    }

    /// A link we destroyed is gone; its stream, released meanwhile, may be linked again now.
    ///
    /// A link whose client left is gone with it: the other session manager, exiting. When we
    /// took linking back its links still stood on the stream's ports, so ours were not made
    /// (a link to linked ports is skipped); the stream is linked again now, or it would stay
    /// silent. A link someone removed while still here (a patchbay) is left removed.
    private func linkRemoved(_ link: Link, in snapshot: GraphSnapshot) {
        // Its stream is no longer linked as it was last time.
        state.linkSignatures[link.outputNode] = nil
        state.linkSignatures[link.inputNode] = nil
        for stream in [link.outputNode, link.inputNode] where state.unlinking[stream]?.remove(link.id) != nil {
            guard state.unlinking[stream]?.isEmpty == true else { continue }
            state.unlinking[stream] = nil
            if state.ready, !state.held.contains(stream) { reconcile(streamID: stream, in: snapshot) }
        }
        guard state.isActive, state.ready, let owner = link.properties["client.id"].flatMap(GlobalID.init), snapshot.clients[owner] == nil
        else { return }
        for stream in [link.outputNode, link.inputNode] where state.linked[stream] != nil && !state.held.contains(stream) && state.unlinking[stream] == nil {
            logger.debug("stream \(stream): link \(link.id) went with client \(owner): linking it again")
            state.relinking.insert(stream)
            reconcile(streamID: stream, in: snapshot)
        }
    }

    // MARK: - Reconciliation

    /// What every stream's decision reads from one snapshot: the devices and the effective
    /// defaults. Built once per reconciliation, not once per stream.
    private struct Devices {
        let endpoints: [LinkEndpoint]
        let defaults: [StreamDirection: LinkEndpoint]
    }

    /// The devices a stream was linked to and how many ports they and the stream had: while
    /// neither changed and none of the stream's links went (``linkRemoved(_:in:)`` forgets it),
    /// linking again would find nothing to do. (Its links are not counted: counted before its
    /// links were made, a stream whose links someone removed would match again.)
    private struct LinkSignature: Equatable {
        let devices: Set<GlobalID>
        let ports: Int
    }

    private func devices(in snapshot: GraphSnapshot) -> Devices {
        if let knownDevices = state.knownDevices { return knownDevices }
        let endpoints = GraphEndpoints.endpoints(in: snapshot)
        var defaults: [StreamDirection: LinkEndpoint] = [:]
        for direction in StreamDirection.allCases {
            defaults[direction] = effectiveDefault(direction, endpoints: endpoints, in: snapshot)
        }
        let devices = Devices(endpoints: endpoints, defaults: defaults)
        state.knownDevices = devices
        return devices
    }

    // MARK: - Once per event

    /// A graph event is being handled: what it and the policy's reaction to it ask of the
    /// linker waits for ``endEvent(in:)``.
    func beginEvent() { state.pending = PendingWork() }

    /// How many of an event's streams are reconciled before its handling ends. libpipewire
    /// sends a connection's requests only once it has handled every message it read: a call
    /// that holds 100 streams has its first streams unlinked on the wire while the other 97
    /// are worked out in the loop's next turn (each costs a few microseconds).
    static let reconciledAtOnce = 4

    /// The event is handled: each stream it touched is reconciled once, the first few now and
    /// the rest in the loop's next turn (``reconciledAtOnce``).
    func endEvent(in snapshot: GraphSnapshot) {
        guard let work = state.pending else { return }
        state.pending = nil
        guard state.ready else { return }
        guard work.streams.count > Self.reconciledAtOnce else { return finish(work, streams: work.streams[...], in: snapshot) }
        for stream in work.streams.prefix(Self.reconciledAtOnce) { reconcileNow(streamID: stream, in: snapshot) }
        let rest = work.streams.dropFirst(Self.reconciledAtOnce)
        graph.performLater { [weak self] in
            guard let self, state.ready else { return }
            self.finish(work, streams: rest, in: self.graph.snapshot)
        }
    }

    private func finish(_ work: PendingWork, streams: ArraySlice<GlobalID>, in snapshot: GraphSnapshot) {
        for stream in streams { reconcileNow(streamID: stream, in: snapshot) }
        if work.defaults || work.everyStream { publishEffectiveDefaults(in: snapshot) }
        if work.everyStream { reconcileEveryStream(in: snapshot, except: work.queued) }
    }

    private func reconcileAll(in snapshot: GraphSnapshot) {
        if state.pending != nil {
            state.pending?.everyStream = true
            return
        }
        publishEffectiveDefaults(in: snapshot)
        reconcileEveryStream(in: snapshot)
    }

    private func reconcileEveryStream(in snapshot: GraphSnapshot, except done: Set<GlobalID> = []) {
        for node in snapshot.nodes.values where GraphEndpoints.streamDirection(of: node) != nil && !done.contains(node.id) {
            reconcileNow(streamID: node.id, in: snapshot)
        }
    }

    private func reconcile(streamID: GlobalID, in snapshot: GraphSnapshot) {
        if state.pending != nil {
            state.pending?.add(streamID)
            return
        }
        reconcileNow(streamID: streamID, in: snapshot)
    }

    private func reconcileNow(streamID: GlobalID, in snapshot: GraphSnapshot) {
        guard let stream = snapshot.nodes[streamID], let direction = GraphEndpoints.streamDirection(of: stream)
        else { return }
        state.reconciledInputs[streamID] = ReconciledInputs(properties: stream.properties, ports: snapshot.portCount(of: streamID))
        if state.held.contains(streamID) {
            // A held stream that got linked anyway (its ports came late, someone linked it) is
            // taken off again.
            unlinkEverything(of: streamID, in: snapshot)
            return
        }
        if state.unlinking[streamID] != nil {
            // Released while its links are still being destroyed: linking its ports again
            // before PipeWire has torn the old links down raced in 0.3.65 (clients got
            // buffers for the wrong link and their nodes went to error). Linked once they
            // are gone (linkRemoved).
            return
        }
        if snapshot.portCount(of: streamID) == 0 {
            // A stream has no ports until its linker configures them (WirePlumber does it as it
            // links, so one that manages devices only leaves it to us).
            if state.portsRequested.insert(streamID).inserted { graph.configurePorts(node: streamID) }
            return
        }
        let devices = devices(in: snapshot)
        let endpoints = devices.endpoints
        let decision = StreamRouting.decide(
            for: GraphEndpoints.request(for: stream, direction: direction, in: snapshot), route: state.routes[streamID] ?? [],
            endpoints: endpoints, defaultEndpoint: devices.defaults[direction])
        let (wanted, reason) = (decision.devices, decision.reason)
        // A device whose DSP ports we asked for and that has none yet (a converter's single
        // port, or none): linked once they are there (its ports' arrival reconciles again),
        // never to the port about to go; meanwhile the stream stays where it plays.
        if wanted.contains(where: { awaitsPorts($0, in: snapshot) }) { return }
        if case .requested(let endpoint) = decision.target { state.pinned[streamID] = endpoint.id } else { state.pinned[streamID] = nil }
        let previous = state.linked[streamID] ?? []
        for device in previous.subtracting(wanted) where snapshot.nodes[device] != nil {
            direction == .playback
                ? graph.unlinkAll(between: streamID, and: device) : graph.unlinkAll(between: device, and: streamID)
        }
        guard !wanted.isEmpty else {
            if state.linked.removeValue(forKey: streamID) != nil {
                logger.info("stream \(streamID) '\(stream.name)' unlinked: \(reason)")
            }
            return
        }
        if previous != wanted {
            let names = wanted.sorted().map { snapshot.nodes[$0]?.name ?? "\($0)" }.joined(separator: " + ")
            let level: Logger.Level = state.relinking.contains(streamID) ? .debug : .info
            logger.log(level: level, "linking \(direction) stream \(streamID) '\(stream.name)' → \(names) (\(reason))")
        }
        state.relinking.remove(streamID)
        // Linking is idempotent but not free (ports paired, links looked up): when the devices
        // and their ports are what they were last time and none of the stream's links went,
        // there is nothing to do. Most events of a linked stream (its state, its volume) change
        // none of them.
        let signature = LinkSignature(
            devices: wanted, ports: wanted.reduce(snapshot.portCount(of: streamID)) { $0 + snapshot.portCount(of: $1) })
        if previous == wanted, state.linkSignatures[streamID] == signature, !state.relinking.contains(streamID) { return }
        state.linkSignatures[streamID] = signature
        state.linked[streamID] = wanted
        for device in wanted.sorted() {
            direction == .playback ? graph.link(output: streamID, input: device) : graph.link(output: device, input: streamID)
        }
    }

    // MARK: - Defaults

    /// The effective default of a direction (``StreamRouting/effectiveDefault(direction:preferred:configuredName:endpoints:)``),
    /// with the user's configured default read from the `default` metadata.
    private func effectiveDefault(
        _ direction: StreamDirection, endpoints: [LinkEndpoint], in snapshot: GraphSnapshot
    ) -> LinkEndpoint? {
        let metadata = snapshot.metadata[GraphEndpoints.defaultMetadata]
        let configured = GraphEndpoints.deviceName(
            inMetadataValue: metadata?.value(for: GraphEndpoints.keys(for: direction).configured, subject: 0))
        return StreamRouting.effectiveDefault(
            direction: direction, preferred: state.preferredDefaults[direction], configuredName: configured, endpoints: endpoints)
    }

    /// Writes the effective defaults to the `default` metadata when they changed, so pulse
    /// clients (`pactl info`), `wpctl` and mixers see the device streams actually follow.
    private func publishEffectiveDefaults(in snapshot: GraphSnapshot) {
        guard let metadata = snapshot.metadata[GraphEndpoints.defaultMetadata] else { return }
        let devices = devices(in: snapshot)
        for direction in StreamDirection.allCases {
            let key = GraphEndpoints.keys(for: direction).effective
            let current = GraphEndpoints.deviceName(inMetadataValue: metadata.value(for: key, subject: 0))
            let wanted = devices.defaults[direction]?.name
            guard current != wanted else { continue }
            graph.setMetadata(
                GraphEndpoints.defaultMetadata, subject: 0, key: key,
                type: wanted == nil ? nil : "Spa:String:JSON",
                value: wanted.map(GraphEndpoints.metadataValue(forDeviceNamed:)))
        }
    }

    /// Without a session manager there is no `default` metadata; pulse clients and mixers need
    /// one to read and set defaults, so the daemon provides it while it is the linker.
    private func ensureDefaultMetadata(in snapshot: GraphSnapshot) {
        guard snapshot.metadata[GraphEndpoints.defaultMetadata] == nil, !state.providedDefaultMetadata else { return }
        state.providedDefaultMetadata = true
        state.restoreConfiguredDefaults = !state.configuredDefaults.isEmpty
        logger.info("no 'default' metadata in the graph: providing it")
        graph.provideMetadata(named: GraphEndpoints.defaultMetadata)
    }

    /// Records the user's chosen defaults, whoever provides the metadata they were set in: the
    /// choice made under WirePlumber still holds once the daemon provides the metadata.
    private func rememberConfiguredDefault(name: String, subject: GlobalID, key: String?, value: String?) {
        guard name == GraphEndpoints.defaultMetadata, subject == 0, let key,
            key == GraphEndpoints.sinkKeys.configured || key == GraphEndpoints.sourceKeys.configured,
            state.configuredDefaults.values[key] != value
        else { return }
        // Our own metadata starts empty: its first reports are not the user clearing a choice.
        if value == nil, state.restoreConfiguredDefaults { return }
        state.configuredDefaults.values[key] = value
        configuredDefaultsFile.write(state.configuredDefaults)
    }

    /// Our `default` metadata has appeared: the user's saved choices go back into it. (The one
    /// that appears after we provided it is ours: while another session manager provides one,
    /// we are not linking. Its owner's client may not be mirrored yet, so it is not asked.)
    private func putBackConfiguredDefaults(into metadata: Metadata) {
        guard state.restoreConfiguredDefaults, state.providedDefaultMetadata else { return }
        state.restoreConfiguredDefaults = false
        for (key, value) in state.configuredDefaults.values.sorted(by: { $0.key < $1.key }) where metadata.value(for: key, subject: 0) == nil {
            logger.info("the user's chosen default kept: \(key) = \(value)")
            graph.setMetadata(GraphEndpoints.defaultMetadata, subject: 0, key: key, type: "Spa:String:JSON", value: value)
        }
    }
}
