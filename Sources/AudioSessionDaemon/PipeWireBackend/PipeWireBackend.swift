#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PipeWireGraph
import SessionPolicy

/// The PipeWire implementation of ``AudioBackend``: turns graph events into
/// ``BackendEvent``s and carries out actions on the graph, journalling every change so that
/// nothing outlives the daemon.
///
/// Confined to PipeWire's loop thread (every entry point is the graph observer, a loop timer,
/// or `PipeWireGraph.perform`).
final class PipeWireBackend: AudioBackend, @unchecked Sendable {
    private let graph: PipeWireGraph
    private let linker: StreamLinker?
    private let logger: Logger
    private let journalFile: JournalFile
    private var journal = EnforcementJournal()
    private var volumes = StreamVolumes()
    /// The graph clock last reported to the policy.
    private var lastHardware: GraphHardware?
    /// Gain factors asked for before the stream's Props were known.
    private var deferredGain: [GlobalID: Double] = [:]
    private var ports = PortTracker()
    private var snapshot = GraphSnapshot()
    private var attached = false
    /// Where translated events go (the policy coordinator).
    var onEvent: ((BackendEvent) -> Void)?

    init(graph: PipeWireGraph, linksStreams: Bool, stateDirectory: URL, logger: Logger) {
        self.graph = graph
        self.linker = linksStreams ? StreamLinker(graph: graph, logger: logger) : nil
        self.logger = logger
        self.journalFile = JournalFile(directory: stateDirectory, logger: logger)
    }

    // MARK: - Graph events in

    func handle(_ event: GraphEvent, in snapshot: GraphSnapshot) {
        self.snapshot = snapshot
        switch event {
        case .connected:
            attached = false
            ports.reset()
        case .initialSyncComplete:
            attached = true
            lastHardware = GraphHardwareReader.read(snapshot)
            undoLeftovers()
            onEvent?(attachedEvent())
            if let lastHardware { onEvent?(.hardware(lastHardware)) }
        case .disconnected:
            // A new PipeWire has none of our changes: nothing to undo there.
            attached = false
            ports.reset()
            volumes.removeAll()
            deferredGain.removeAll()
            journal = EnforcementJournal()
            journalFile.write(journal)
            onEvent?(.lost)
        case .added(.node(let node)) where attached:
            if let stream = backendStream(node) { onEvent?(.streamAppeared(stream)) }
            else { report(ports.refresh(node, in: snapshot)) }
        case .added(.device(let device)) where attached, .changed(.device(let device)) where attached:
            // Jack sensing: a route's availability flipped (or the routes were first read).
            for node in snapshot.sortedNodes where node.deviceID == device.id {
                report(ports.refresh(node, in: snapshot))
            }
        case .changed(.node(let node)) where attached:
            if GraphEndpoints.endpointDirection(of: node) != nil { report(ports.refresh(node, in: snapshot)) }
            if let volume = node.props?.volume {
                switch volumes.observe(volume, stream: node.id) {
                case .ours:
                    break
                case .reasserted(let rewrite):
                    graph.setProps(node: node.id, volume: rewrite)
                case .external:
                    volumes.adopt(stream: node.id)
                    recordStream(node.id) { $0.baseVolume = nil }
                    onEvent?(.volumeTakenOver(node.id))
                }
            }
            if node.props?.volume != nil, Self.hasPorts(node), let factor = deferredGain.removeValue(forKey: node.id) {
                setGainFactor(factor, of: node.id)
            }
            if let stream = backendStream(node) { onEvent?(.streamChanged(stream)) }
        case .removed(.node(let node)) where attached:
            if GraphEndpoints.streamDirection(of: node) != nil {
                volumes.forget(node.id)
                deferredGain[node.id] = nil
                if journal.streams.removeValue(forKey: String(node.id)) != nil { journalFile.write(journal) }
                onEvent?(.streamRemoved(node.id))
            } else if GraphEndpoints.endpointDirection(of: node) != nil {
                report(ports.removed(node.id))
            }
        case .metadataChanged(let name, let subject, let key, let value) where attached:
            if name == GraphEndpoints.defaultMetadata, subject == 0, let key,
                let direction = Self.configuredDefaultDirection(key),
                let device = GraphEndpoints.deviceName(inMetadataValue: value),
                let uid = portUID(ofNodeNamed: device)
            {
                onEvent?(.defaultChanged(direction, uid: uid))
            }
            if name == "settings", let key, key.hasPrefix("clock."), let hardware = GraphHardwareReader.read(snapshot),
                hardware != lastHardware
            {
                lastHardware = hardware
                onEvent?(.hardware(hardware))
            }
        default:
            break
        }
        // Linking comes after the policy has seen the event, so a stream the policy holds is
        // never linked, not even for a moment.
        linker?.handle(event, in: snapshot)
    }

    /// A stream's converter has its ports (and so its final Props) once they are configured.
    private static func hasPorts(_ node: Node) -> Bool {
        node.isCaptureStream ? node.inputPortCount > 0 : node.outputPortCount > 0
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
        let available = ports.attach(to: snapshot)
        return .attached(
            streams: streams, ports: available,
            defaultOutput: (snapshot.configuredAudioSinkName ?? snapshot.defaultAudioSinkName).flatMap(portUID(ofNodeNamed:)),
            defaultInput: (snapshot.configuredAudioSourceName ?? snapshot.defaultAudioSourceName).flatMap(portUID(ofNodeNamed:)))
    }

    private func report(_ events: [BackendEvent]) {
        for event in events { onEvent?(event) }
    }

    /// The `default` metadata names nodes; the policy knows ports: a device node's port is the
    /// route it plays on now.
    private func portUID(ofNodeNamed name: String) -> String? {
        snapshot.node(named: name).flatMap { PortClassification.activePort(of: $0, in: snapshot, rule: ports.typeRule)?.uid }
    }

    private func backendStream(_ node: Node) -> BackendStream? {
        guard let direction = GraphEndpoints.streamDirection(of: node) else { return nil }
        let client = snapshot.client(of: node)
        let properties = (client?.properties ?? [:]).merging(node.properties) { _, nodeValue in nodeValue }
        let activity: StreamActivity =
            node.isCorked ? .pausedByUser : (node.state == .running ? .playing : .idle)
        let appName = properties["application.name"] ?? properties["application.process.binary"] ?? node.name
        return BackendStream(
            id: node.id, client: node.clientID ?? 0, direction: direction, properties: properties,
            activity: activity, appName: appName, processID: client?.pid)
    }

    // MARK: - Actions out

    var interruptionMethods: Set<InterruptionMethod> {
        // Holding a stream means unlinking it, which only works while we are the linker.
        linker == nil ? [.mute] : [.unlink, .mute]
    }

    func setGainFactor(_ factor: Double, of stream: UInt32) {
        guard let node = snapshot.nodes[stream] else { return }
        guard let current = node.props?.volume, Self.hasPorts(node) else {
            // Its Props are not known yet (the base would be a guess), or its ports are not
            // configured yet (configuring them resets the converter's Props): apply after.
            deferredGain[stream] = factor
            return
        }
        deferredGain[stream] = nil
        let volume = volumes.volume(for: factor, stream: stream, current: current)
        let base = volumes.touched[stream]?.base
        recordStream(stream) { $0.baseVolume = base }
        graph.setProps(node: stream, volume: volume)
    }

    func hold(_ stream: UInt32) { linker?.hold(stream, in: snapshot) }

    func pinnedDevice(of stream: UInt32) -> UInt32? {
        linker?.pinnedDevice(of: stream).flatMap { snapshot.nodes[$0] != nil ? $0 : nil }
    }

    func usePortTypeRule(_ rule: @escaping PortClassification.TypeRule) { ports.typeRule = rule }

    func route(_ stream: UInt32, to devices: [UInt32]) { linker?.follow(stream, to: devices, in: snapshot) }

    func preferDefaultDevices(output: UInt32?, input: UInt32?) {
        linker?.preferDefaults(output: output, input: input, in: snapshot)
    }

    func release(_ stream: UInt32) { linker?.release(stream, in: snapshot) }

    func setMutedByPolicy(_ muted: Bool, stream: UInt32) {
        guard let node = snapshot.nodes[stream] else { return }
        if muted {
            guard node.props?.mute != true else { return }  // the user's mute: not ours to lift later
            recordStream(stream) { $0.mutedByPolicy = true }
            graph.setProps(node: stream, mute: true)
        } else if journal.streams[String(stream)]?.mutedByPolicy == true {
            recordStream(stream) { $0.mutedByPolicy = false }
            graph.setProps(node: stream, mute: false)
        }
    }

    func applyHardware(_ choice: HardwareChoice) {
        journal.forcedQuantum = choice.quantum
        journal.forcedRate = choice.sampleRate
        journalFile.write(journal)
        graph.setMetadata("settings", subject: 0, key: "clock.force-quantum", type: nil, value: String(choice.quantum ?? 0))
        graph.setMetadata("settings", subject: 0, key: "clock.force-rate", type: nil, value: String(choice.sampleRate ?? 0))
    }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        LoopTimer(after: delay, graph: graph, work)
    }

    // MARK: - Nothing left behind

    private func recordStream(_ id: UInt32, _ change: (inout EnforcementJournal.StreamEntry) -> Void) {
        let key = String(id)
        guard let serial = snapshot.nodes[id]?.serial else { return }
        var entry = journal.streams[key] ?? EnforcementJournal.StreamEntry(serial: serial)
        change(&entry)
        let clean = entry.baseVolume == nil && !entry.mutedByPolicy
        let before = journal.streams[key]
        journal.streams[key] = clean ? nil : entry
        if journal.streams[key] != before { journalFile.write(journal) }
    }

    /// On attach: undo what a previous run (crashed, or killed with SIGKILL) left behind.
    private func undoLeftovers() {
        let leftovers = journalFile.read()
        guard !leftovers.isEmpty else { return }
        logger.info("undoing what a previous run left behind (\(leftovers.streams.count) streams)")
        restore(leftovers)
        journalFile.write(journal)
    }

    /// Undoes everything we changed: before exit (SIGTERM) the daemon leaves PipeWire as the
    /// user had it.
    func undoAll() {
        guard attached else { return }
        restore(journal)
        journal = EnforcementJournal()
        volumes.removeAll()
        journalFile.write(journal)
    }

    private func restore(_ entries: EnforcementJournal) {
        for (key, entry) in entries.streams {
            // Match by serial: the id may belong to another stream by now.
            guard let id = UInt32(key), let node = snapshot.nodes[id], node.serial == entry.serial else { continue }
            if let base = entry.baseVolume { graph.setProps(node: id, volume: base) }
            if entry.mutedByPolicy { graph.setProps(node: id, mute: false) }
        }
        let settings = snapshot.metadata["settings"]
        if let quantum = entries.forcedQuantum, settings?.value(for: "clock.force-quantum", subject: 0) == String(quantum) {
            graph.setMetadata("settings", subject: 0, key: "clock.force-quantum", type: nil, value: "0")
        }
        if let rate = entries.forcedRate, settings?.value(for: "clock.force-rate", subject: 0) == String(rate) {
            graph.setMetadata("settings", subject: 0, key: "clock.force-rate", type: nil, value: "0")
        }
    }
}
