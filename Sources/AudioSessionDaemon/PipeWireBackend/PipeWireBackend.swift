#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import Logging
import PipeWireGraph
import SessionPolicy

/// The PipeWire implementation of ``AudioBackend``: turns graph events into
/// ``BackendEvent``s, reads and writes raw values (volumes, mutes, the `settings` metadata)
/// for enforcement, and links streams (``StreamLinker``). What it writes is journalled and
/// undone by enforcement, not here.
///
/// Confined to PipeWire's loop thread (every entry point is the graph observer, a loop timer,
/// or `PipeWireGraph.perform`).
final class PipeWireBackend: AudioBackend, Sendable {
    private let graph: PipeWireGraph
    private let loop: DaemonLoop
    private let linker: StreamLinker
    private struct State {
        /// The other clients last reported (``BackendEvent/peersChanged(_:)``).
        var reportedPeers: [GraphPeer]?
        /// A stream linked into another manager's role-based policy was reported.
        var reportedRolePolicy = false
        /// The graph clock last reported to the policy.
        var lastHardware: GraphHardware?
        /// Each stream's merged properties, with what they were merged from.
        var propertyMerges: [GlobalID: PropertyMerge] = [:]
        /// Our share of streams' levels (ducks, policy mutes), where it is not the identity.
        var softShares: [GlobalID: SoftShare] = [:]
        var ports = PortTracker<GlobalID>()
        var profileSwitches = ProfileSwitchWatch()
        /// Headsets' profiles as last told (``BackendEvent/headsetProfilesChanged(device:_:)``).
        var reportedHeadsets: [String: HeadsetProfiles?] = [:]
        /// Another manager's headset autoswitch as last told; none: not told yet.
        var reportedHeadsetAutoswitch: Bool?? = .none
        /// Device nodes' levels and data sources as last reported.
        var deviceReports = DeviceReports()
        /// Clients' processes as the kernel vouches for them.
        var vouched = VouchedProcess()
        var attached = false
    }

    private let state: LoopBound<State>
    private let logger: Logger
    /// The mirror, read where it lives: kept across events, a copy would make the mirror's
    /// every change copy what it shares.
    private var snapshot: GraphSnapshot { graph.snapshot }
    /// Samples what the graph's clock runs at when something may have changed it.
    private let clockProbe: ClockProbe
    /// Where translated events go (the policy coordinator), wired before the loop runs.
    let onEvent: WiredOnce<(@Sendable (BackendEvent) -> Void)?>

    /// `linksStreams`: whether it starts as the linker (the policy says again once it has seen
    /// the graph's other clients).
    init(graph: PipeWireGraph, loop: DaemonLoop, linksStreams: Bool, stateDirectory: URL, logger: Logger) {
        self.graph = graph
        self.loop = loop
        self.linker = StreamLinker(graph: graph, loop: loop, active: linksStreams, stateDirectory: stateDirectory, logger: logger)
        self.logger = logger
        let onEvent = WiredOnce<(@Sendable (BackendEvent) -> Void)?>(fallback: nil)
        self.onEvent = onEvent
        clockProbe = ClockProbe(graph: graph, loop: loop, logger: logger) { clock in onEvent.value?(.clockObserved(clock)) }
        state = LoopBound(State(), on: loop)
    }

    // MARK: - Graph events in

    func handle(_ event: GraphEvent, in snapshot: GraphSnapshot) {
        // What the policy asks of the linker while it reacts waits for the end of the event.
        linker.beginEvent()
        defer { linker.endEvent(in: snapshot) }
        switch event {
        case .connected:
            state.attached = false
            state.ports.reset()
            state.profileSwitches.reset()
            state.deviceReports.reset()
            state.reportedHeadsets.removeAll()
            state.reportedPeers = nil
            state.reportedHeadsetAutoswitch = .none
            state.reportedRolePolicy = false
        case .initialSyncComplete:
            // Who else manages the graph first: it decides whether we link what follows.
            reportPeers(in: snapshot)
            reportHeadsetAutoswitch(in: snapshot)
            state.attached = true
            reportRolePolicy(in: snapshot)
            state.lastHardware = GraphHardwareReader.read(snapshot)
            onEvent.value?(attachedEvent())
            if let lastHardware = state.lastHardware { onEvent.value?(.hardware(lastHardware)) }
            for node in snapshot.sortedNodes {
                reportLevels(of: node)
                reportDataSources(of: node, in: snapshot)
            }
            for device in snapshot.devices.values.sorted(by: { $0.id < $1.id }) {
                reportProfile(of: device)
                reportHeadset(device)
            }
        case .disconnected:
            // A new PipeWire has none of our changes: nothing to undo there.
            state.attached = false
            state.ports.reset()
            state.profileSwitches.reset()
            state.reportedHeadsets.removeAll()
            state.propertyMerges.removeAll()
            state.softShares.removeAll()
            onEvent.value?(.lost)
        case .announced(let node) where state.attached && linker.isActive:
            // Only while we link: a hold ahead is an unlink.
            if let stream = backendStream(node) {
                let api = snapshot.client(of: node)?.properties["client.api"]
                onEvent.value?(.streamAnnounced(stream, mayStartPaused: api == "pipewire-pulse"))
            }
        case .announcementWithdrawn(let id):
            linker.settleHoldsAhead(of: id, in: snapshot)
        case .added(.node(let node)) where state.attached:
            if let stream = backendStream(node) {
                onEvent.value?(.streamAppeared(stream))
                settleHoldsAheadLater(of: node.id)
            } else {
                report(state.ports.refresh(node, in: snapshot))
                reportLevels(of: node)
                reportDataSources(of: node, in: snapshot)
                reportHeadset(of: node, in: snapshot)
            }
        case .added(.device(let device)) where state.attached, .changed(.device(let device)) where state.attached:
            // Jack sensing: a route's availability flipped (or the routes were first read).
            for node in snapshot.sortedNodes where node.deviceID == device.id {
                report(state.ports.refresh(node, in: snapshot))
                reportDataSources(of: node, in: snapshot)
            }
            reportProfile(of: device)
            reportHeadset(device)
        case .added(.client(let client)) where state.attached, .changed(.client(let client)) where state.attached:
            reportPeers(in: snapshot)
            // A client's properties arrived or changed (pid, name, portal app id): its streams'
            // merged properties changed with them.
            for node in snapshot.sortedNodes where node.clientID == client.id {
                if let stream = backendStream(node) { onEvent.value?(.streamChanged(stream)) }
            }
        case .removed(.device(let device)) where state.attached:
            for event in state.profileSwitches.deviceRemoved(named: device.name) { onEvent.value?(event) }
            tell(state.deviceReports.profile(nil, saved: false, ofCard: device.name))
            forgetHeadset(named: device.name)
        case .removed(.client) where state.attached, .added(.metadata) where state.attached, .removed(.metadata) where state.attached:
            reportPeers(in: snapshot)
            reportHeadsetAutoswitch(in: snapshot)
        case .added(.link(let link)) where state.attached:
            if !state.reportedRolePolicy { reportRolePolicy(link, in: snapshot) }
        case .changed(.node(let node)) where state.attached:
            if GraphEndpoints.endpointDirection(of: node) != nil {
                report(state.ports.refresh(node, in: snapshot))
                reportLevels(of: node)
                reportDataSources(of: node, in: snapshot)
            }
            if let stream = backendStream(node) {
                keepSoftShare(of: node)
                if Self.userLevel(of: node) != nil {
                    onEvent.value?(.volumeReported(stream.id, state.softShares[node.id]?.gain ?? 1))
                }
                onEvent.value?(.streamChanged(stream))
            }
        case .removed(.node(let node)) where state.attached:
            if let direction = GraphEndpoints.streamDirection(of: node) {
                state.propertyMerges[node.id] = nil
                state.softShares[node.id] = nil
                onEvent.value?(.streamRemoved(StreamID(direction, node.id)))
            } else if let direction = GraphEndpoints.endpointDirection(of: node) {
                report(state.ports.removed(node.id))
                tell(state.deviceReports.removed(Self.deviceID(node.id, direction)))
                reportHeadset(of: node, in: snapshot)
            }
        case .levelChanged(let node, let audible) where state.attached:
            onEvent.value?(.streamAudible(StreamID(.playback, node), audible))  // meters watch playback streams
        case .metadataChanged(let name, let subject, let key, let value) where state.attached:
            if name == Self.sessionManagerSettings { reportHeadsetAutoswitch(in: snapshot) }
            if name == GraphEndpoints.defaultMetadata, subject == 0, let key,
                let direction = Self.configuredDefaultDirection(key),
                let device = GraphEndpoints.deviceName(inMetadataValue: value)
            {
                if let uid = portUID(ofNodeNamed: device) {
                    logger.debug("the user's default \(direction) is \(device)")
                    onEvent.value?(.defaultChanged(direction, uid: uid))
                } else {
                    logger.debug("the user's default \(direction) is \(device), which is not a known device (yet)")
                }
            }
            if name == "settings", let key, key.hasPrefix("clock."), let hardware = GraphHardwareReader.read(snapshot),
                hardware != state.lastHardware
            {
                state.lastHardware = hardware
                onEvent.value?(.hardware(hardware))
            }
        default:
            break
        }
        // Linking comes after the policy has seen the event, so a stream the policy holds is
        // never linked, not even for a moment; each stream the event touched is linked once.
        linker.handle(event, in: snapshot)
        switch event {
        case .connected, .disconnected, .initialSyncComplete: clockProbe.handle(event, in: snapshot)
        default: if state.attached { clockProbe.handle(event, in: snapshot) }
        }
    }

    /// What the user set on a device node (its `Props`), when it differs from what was last
    /// reported: a sink's volume (the cube root of its loudest channel, as volume controls show
    /// it), a source's volume and mute.
    private func reportLevels(of node: Node) {
        guard let direction = GraphEndpoints.endpointDirection(of: node) else { return }
        let device = Self.deviceID(node.id, direction)
        if direction == .playback {
            guard let props = node.props else { return }
            tell(state.deviceReports.output(device, volume: props.mute == true ? 0 : Self.controlVolume(props)))
        } else {
            tell(state.deviceReports.input(device, volume: node.props.map(Self.controlVolume), muted: node.props?.mute == true))
        }
    }

    /// A device node's data sources (its card's routes), when they differ from what was last
    /// reported.
    private func reportDataSources(of node: Node, in snapshot: GraphSnapshot) {
        guard let direction = GraphEndpoints.endpointDirection(of: node) else { return }
        tell(state.deviceReports.dataSources(PortClassification.dataSources(of: node, in: snapshot), of: Self.deviceID(node.id, direction)))
    }

    /// A device node as the policy names it: an output for a sink, an input for a source.
    private static func deviceID(_ node: GlobalID, _ direction: StreamDirection) -> DeviceID {
        DeviceID(direction == .playback ? .output : .input, node)
    }

    // MARK: - Other session managers

    /// Reports the graph's other clients when they changed (not our own connections).
    private func reportPeers(in snapshot: GraphSnapshot) {
        let defaultOwner = snapshot.metadata[GraphEndpoints.defaultMetadata]?.properties["client.id"].flatMap(GlobalID.init)
        let peers = snapshot.clients.values.filter { !GraphEndpoints.isOwn($0) }.sorted { $0.id < $1.id }.map {
            GraphPeer(
                id: $0.id, name: $0.applicationName, binary: $0.processBinary, providesDefaultMetadata: $0.id == defaultOwner,
                processID: $0.securityPID, services: GraphPeer.services(from: $0.properties["session.services"]))
        }
        guard peers != state.reportedPeers else { return }
        state.reportedPeers = peers
        onEvent.value?(.peersChanged(peers))
    }

    /// WirePlumber 0.5's settings metadata.
    static let sessionManagerSettings = "sm-settings"

    /// Reports what another manager's settings say of its headset autoswitch, when it changed.
    private func reportHeadsetAutoswitch(in snapshot: GraphSnapshot) {
        let value = snapshot.metadata[Self.sessionManagerSettings]?.value(for: "bluetooth.autoswitch-to-headset-profile")
        let on: Bool? = switch value?.lowercased() {
        case "true": true
        case "false": false
        default: nil
        }
        guard state.reportedHeadsetAutoswitch != .some(on) else { return }
        state.reportedHeadsetAutoswitch = .some(on)
        onEvent.value?(.headsetAutoswitchChanged(on))
    }

    private func reportRolePolicy(in snapshot: GraphSnapshot) {
        for link in snapshot.links.values where !state.reportedRolePolicy { reportRolePolicy(link, in: snapshot) }
    }

    /// A stream linked into a node another session manager marked as a role-based policy
    /// target (WirePlumber's role loopbacks).
    private func reportRolePolicy(_ link: Link, in snapshot: GraphSnapshot) {
        guard let target = snapshot.nodes[link.inputNode], target.properties["policy.role-based.target"] == "true",
            let stream = snapshot.nodes[link.outputNode], GraphEndpoints.streamDirection(of: stream) != nil
        else { return }
        state.reportedRolePolicy = true
        onEvent.value?(.rolePolicySeen(stream: stream.name, target: target.name))
    }

    func setLinking(_ links: Bool, configuringDevicePorts: Bool) {
        linker.configuresDevicePorts = configuringDevicePorts
        if links { linker.activate(in: snapshot, attached: state.attached) } else { linker.deactivate(in: snapshot) }
    }

    func withdrawDefaultMetadata() { linker.withdrawDefaultMetadata() }

    /// A stream's converter has its ports (and so its final Props) once they are configured.
    private static func hasPorts(_ node: Node) -> Bool {
        channels(of: node) > 0
    }

    /// A stream's channels: its ports on the side it plays or records (one per channel, in the
    /// DSP mode streams are configured in).
    private static func channels(of node: Node) -> Int {
        node.isCaptureStream ? node.inputPortCount : node.outputPortCount
    }

    /// The user's level of a stream (``SoftShare/UserLevel``).
    private static func userLevel(of node: Node) -> SoftShare.UserLevel? {
        SoftShare.UserLevel(node.props, channels: channels(of: node))
    }

    private static func configuredDefaultDirection(_ key: String) -> PortDirection? {
        switch key {
        case GraphEndpoints.sinkKeys.configured: .output
        case GraphEndpoints.sourceKeys.configured: .input
        default: nil
        }
    }

    private func attachedEvent() -> BackendEvent {
        let streams = snapshot.sortedNodes.compactMap(backendStream)
        let available = state.ports.attach(to: snapshot)
        state.profileSwitches.attached(available)
        return .attached(
            streams: streams, ports: available,
            defaultOutput: (snapshot.configuredAudioSinkName ?? snapshot.defaultAudioSinkName).flatMap(portUID(ofNodeNamed:)),
            defaultInput: (snapshot.configuredAudioSourceName ?? snapshot.defaultAudioSourceName).flatMap(portUID(ofNodeNamed:)))
    }

    private func tell(_ events: [BackendEvent]) {
        for event in events { onEvent.value?(event) }
    }

    /// Port events, with a port that goes while its device stays told as leaving with its
    /// device's profile.
    private func report(_ events: [BackendEvent]) {
        let devices = snapshot.devices.values
        let translated = state.profileSwitches.translate(events) { name in devices.contains { $0.name == name } }
        for event in translated { onEvent.value?(event) }
    }

    /// The `default` metadata names nodes; the policy knows ports: a device node's port is the
    /// route it plays on now.
    private func portUID(ofNodeNamed name: String) -> String? {
        snapshot.node(named: name).flatMap { PortClassification.activePort(of: $0, in: snapshot, rule: state.ports.typeRule)?.uid }
    }

    private func backendStream(_ node: Node) -> BackendStream? {
        guard let direction = GraphEndpoints.streamDirection(of: node) else { return nil }
        let client = snapshot.client(of: node)
        let merge = mergedProperties(of: node, client: client)
        let activity: StreamActivity =
            node.isCorked ? .pausedByUser : (node.state == .running ? .playing : .idle)
        return BackendStream(
            id: StreamID(direction, node.id), client: node.clientID ?? 0, connectionSerial: client?.serial,
            properties: merge.merged,
            activity: activity, appName: merge.appName ?? node.name, processID: client.flatMap { state.vouched.pid(of: $0) },
            sandboxAppID: merge.sandboxAppID, statedProcessID: merge.statedProcessID,
            hardwareRequest: merge.hardwareRequest, namedSession: merge.namedSession,
            capturesMonitor: GraphEndpoints.capturesMonitor(node, in: snapshot))
    }

    /// The stream's properties over its client's, and what is read from them, merged and read
    /// again only when either changed: a stream's state and volume change far more often than
    /// its properties (a hundred streams cut off and back in per call), and the merge was a
    /// tenth of the daemon's time, the parse of `node.latency` another twentieth.
    private func mergedProperties(of node: Node, client: Client?) -> PropertyMerge {
        let clientProperties = client?.properties ?? [:]
        if let cached = state.propertyMerges[node.id], cached.node == node.properties, cached.client == clientProperties {
            return cached  // equal dictionaries sharing storage compare in O(1)
        }
        let merged = clientProperties.merging(node.properties) { _, nodeValue in nodeValue }
        let merge = PropertyMerge(node: node.properties, client: clientProperties, merged: merged)
        state.propertyMerges[node.id] = merge
        return merge
    }

    private struct PropertyMerge {
        let node: [String: String]
        let client: [String: String]
        let merged: [String: String]
        let appName: String?
        let sandboxAppID: String?
        let statedProcessID: Int32?
        let hardwareRequest: StreamHardwareRequest?
        let namedSession: UInt64?

        init(node: [String: String], client: [String: String], merged: [String: String]) {
            self.node = node
            self.client = client
            self.merged = merged
            appName = merged["application.name"] ?? merged["application.process.binary"]
            sandboxAppID = merged["pipewire.access.portal.app_id"].flatMap { $0.isEmpty ? nil : $0 }
            statedProcessID = merged["application.process.id"].flatMap { Int32($0) }
            hardwareRequest = NodeHardwareRequest.request(from: merged)
            namedSession = merged["audiosession.id"].flatMap { UInt64($0) }
        }
    }

    // MARK: - Actions out

    /// A level meter on the stream (a capture stream of ours linked to its output).
    func watchLevel(of stream: StreamID, threshold: Float) -> Bool {
        let stream = stream.rawValue
        guard snapshot.nodes[stream] != nil else { return false }
        graph.startMeter(node: stream, threshold: threshold)
        return true
    }

    func stopWatchingLevel(of stream: StreamID) {
        graph.stopMeter(node: stream.rawValue)
    }

    var interruptionMethods: Set<InterruptionMethod> {
        // Holding a stream means unlinking it, which only works while we are the linker.
        linker.isActive ? [.unlink, .mute] : [.mute]
    }

    // MARK: Raw reads and writes

    /// Our gain over the user's channel volumes (``SoftShare``): 1 where we wrote none.
    func volume(of stream: StreamID) -> Float? {
        // Before its ports are configured, configuring them resets the converter's Props.
        guard let node = snapshot.nodes[stream.rawValue], Self.hasPorts(node), Self.userLevel(of: node) != nil
        else { return nil }
        return state.softShares[stream.rawValue]?.gain ?? 1
    }

    /// The user's mute (a policy mute of ours is in the soft mute, not here).
    func isMuted(_ stream: StreamID) -> Bool? {
        snapshot.nodes[stream.rawValue].map { $0.props?.mute == true }
    }

    func identity(of stream: StreamID) -> UInt64? { snapshot.nodes[stream.rawValue]?.serial }

    var forcedQuantum: Int? { forcedSetting("clock.force-quantum") }
    var forcedSampleRate: Int? { forcedSetting("clock.force-rate") }

    private func forcedSetting(_ key: String) -> Int? {
        snapshot.metadata["settings"]?.value(for: key, subject: 0).flatMap { Int($0) }.flatMap { $0 == 0 ? nil : $0 }
    }

    func writeVolume(_ volume: Float, of stream: StreamID) {
        state.softShares[stream.rawValue, default: SoftShare()].gain = volume
        writeSoftShare(of: stream.rawValue)
    }

    func writeMute(_ muted: Bool, of stream: StreamID) {
        state.softShares[stream.rawValue, default: SoftShare()].muted = muted
        writeSoftShare(of: stream.rawValue)
    }

    /// Writes our share over the stream's user level, once that is known (else at its report).
    private func writeSoftShare(of id: GlobalID) {
        guard var share = state.softShares[id], let node = snapshot.nodes[id], let user = Self.userLevel(of: node)
        else { return }
        let soft = share.write(over: user, running: node.state == .running)
        state.softShares[id] = share
        graph.setSoftProps(node: id, volumes: soft.volumes, mute: soft.mute)
    }

    /// A stream's Props or state changed: our share is written again where the user's write
    /// (or the stream's own, as it starts) dropped it, and forgotten once it is the identity.
    private func keepSoftShare(of node: Node) {
        guard let share = state.softShares[node.id], let props = node.props else { return }
        switch share.verdict(on: props, channels: Self.channels(of: node), running: node.state == .running) {
        case .rewrite: writeSoftShare(of: node.id)
        case .done: state.softShares[node.id] = nil
        case .keep: break
        }
    }

    func forceQuantum(_ frames: Int?) {
        graph.setMetadata("settings", subject: 0, key: "clock.force-quantum", type: nil, value: String(frames ?? 0))
    }

    func forceSampleRate(_ hertz: Int?) {
        graph.setMetadata("settings", subject: 0, key: "clock.force-rate", type: nil, value: String(hertz ?? 0))
    }

    /// A device's volume as volume controls show it: the cube root of its loudest channel.
    private static func controlVolume(_ props: NodeProps) -> Double {
        let linear = props.channelVolumes.max() ?? props.volume ?? 1
        return (Double(cbrt(linear)) * 10_000).rounded() / 10_000
    }

    /// A source node's Props (nil for any other node, or one whose Props are not known yet).
    private func sourceProps(of device: DeviceID) -> NodeProps? {
        guard let node = snapshot.nodes[device.rawValue], GraphEndpoints.endpointDirection(of: node) == .capture else { return nil }
        return node.props
    }

    /// Per channel; a node that reports only its single volume has that one.
    private static func channelVolumes(_ props: NodeProps) -> [Float] {
        props.channelVolumes.isEmpty ? [props.volume ?? 1] : props.channelVolumes
    }

    func inputVolume(of device: DeviceID) -> Double? {
        sourceProps(of: device).map(Self.controlVolume)
    }

    func writeInputVolume(_ volume: Double, of device: DeviceID) {
        guard let props = sourceProps(of: device) else { return }
        let target = Float(pow(min(max(volume, 0), 1), 3))
        let channels = Self.channelVolumes(props)
        let loudest = channels.max() ?? 0
        let scaled = loudest > 0 ? channels.map { $0 / loudest * target } : channels.map { _ in target }
        graph.setProps(node: device.rawValue, channelVolumes: scaled)
    }

    func inputChannelLevels(of device: DeviceID) -> [Double]? {
        sourceProps(of: device).map { Self.channelVolumes($0).map(Double.init) }
    }

    func writeInputChannelLevels(_ levels: [Double], of device: DeviceID) {
        guard snapshot.nodes[device.rawValue] != nil, !levels.isEmpty else { return }
        graph.setProps(node: device.rawValue, channelVolumes: levels.map(Float.init))
    }

    func name(of device: DeviceID) -> String? { snapshot.nodes[device.rawValue]?.name }

    func device(named name: String) -> DeviceID? {
        for node in snapshot.nodes.values where node.name == name {
            guard let direction = GraphEndpoints.endpointDirection(of: node) else { continue }
            return Self.deviceID(node.id, direction)
        }
        return nil
    }

    func selectedDataSource(of device: DeviceID) -> UInt32? {
        guard let node = snapshot.nodes[device.rawValue], let card = node.deviceID.flatMap({ snapshot.devices[$0] }),
            let route = PortClassification.activeRoute(of: node, on: card)
        else { return nil }
        return UInt32(route.index)
    }

    func selectDataSource(_ source: UInt32, of device: DeviceID) {
        guard let node = snapshot.nodes[device.rawValue], let card = node.deviceID,
            let profileDevice = Int(node.properties["card.profile.device"] ?? "")
        else { return }
        graph.setRoute(device: card, index: Int(source), profileDevice: profileDevice)
    }

    func activeProfile(ofHeadset device: String) -> Int? {
        headset(named: device).flatMap { HeadsetReading.activeProfile(of: $0, in: snapshot)?.index }
    }

    func profileIndex(_ profile: HeadsetProfile, ofHeadset device: String) -> Int? {
        headset(named: device).flatMap { HeadsetReading.bestProfile(profile, of: $0) }
    }

    func selectProfile(_ index: Int, ofHeadset device: String) {
        guard let headset = headset(named: device) else { return }
        graph.setProfile(device: headset.id, index: index)
    }

    private func headset(named name: String) -> Device? {
        snapshot.devices.values.first { $0.name == name && HeadsetReading.isHeadset($0) }
    }

    /// A device's active profile as its `Profile` param says (with the user's `save`), when it
    /// changed: the reason its profile switch's sessions hear.
    private func reportProfile(of device: Device) {
        tell(state.deviceReports.profile(device.activeProfile?.name, saved: device.activeProfile?.save ?? false, ofCard: device.name))
    }

    /// A headset's profiles, when they changed.
    private func reportHeadset(_ device: Device) {
        guard HeadsetReading.isHeadset(device) else { return }
        let profiles = HeadsetReading.profiles(of: device, in: snapshot)
        guard state.reportedHeadsets[device.name] != profiles else { return }
        state.reportedHeadsets[device.name] = profiles
        onEvent.value?(.headsetProfilesChanged(device: device.name, profiles))
    }

    /// A headset's node came or went: its nodes say which profile it has.
    private func reportHeadset(of node: Node, in snapshot: GraphSnapshot) {
        guard node.properties["api.bluez5.profile"] != nil, let device = node.deviceID.flatMap({ snapshot.devices[$0] }) else { return }
        reportHeadset(device)
    }

    private func forgetHeadset(named name: String) {
        guard state.reportedHeadsets.removeValue(forKey: name) != nil else { return }
        onEvent.value?(.headsetProfilesChanged(device: name, nil))
    }

    func hold(_ stream: StreamID) { linker.hold(stream.rawValue, in: snapshot) }

    func pinnedDevice(of stream: StreamID) -> DeviceID? {
        linker.pinnedDevice(of: stream.rawValue).flatMap {
            snapshot.nodes[$0] != nil ? Self.deviceID($0, stream.direction) : nil
        }
    }

    func usePortTypeRule(_ rule: @escaping PortTyping.TypeRule) { state.ports.typeRule = rule }

    func route(_ stream: StreamID, to devices: [DeviceID]) {
        linker.follow(stream.rawValue, to: devices.map(\.rawValue), in: snapshot)
    }

    func preferDefaultDevices(output: DeviceID?, input: DeviceID?) {
        linker.preferDefaults(output: output?.rawValue, input: input?.rawValue, in: snapshot)
    }

    func release(_ stream: StreamID) { linker.release(stream.rawValue, in: snapshot) }

    func holdAhead(_ streams: [StreamID], until trigger: StreamID) {
        linker.holdAhead(streams.map(\.rawValue), until: trigger.rawValue, in: snapshot)
    }

    /// Once the stream's appearance has been judged, with whatever that left for the loop's
    /// next turn (the other victims' holds), what it did not hold goes back.
    private func settleHoldsAheadLater(of trigger: GlobalID) {
        guard linker.holdsAhead(of: trigger) else { return }
        loop.performLater { [weak self] in
            guard let self else { return }
            linker.settleHoldsAhead(of: trigger, in: snapshot)
        }
    }

    var holdsWaiting: Bool { linker.holdsWaiting }
}
