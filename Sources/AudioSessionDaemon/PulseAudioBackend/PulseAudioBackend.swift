#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PulseAudioServer
import SessionPolicy

/// The PulseAudio implementation of ``AudioBackend``: turns a pure PulseAudio server's
/// changes into ``BackendEvent``s and carries out raw actions with libpulse. What it writes is
/// journalled and undone by enforcement, not here.
///
/// PulseAudio lets no client cork another's stream, so a held stream is moved to a suspended
/// null sink (or source) of ours, where its clock stops as an unlinked PipeWire stream's does,
/// and moved back on release (``ParkingDevices``). Volumes are the sink input's own (the
/// user's, as pavucontrol shows them): enforcement keeps its factor apart and writes the
/// user's value back. Neither the quantum nor the rate can be forced.
final class PulseAudioBackend: AudioBackend, Sendable {
    private let connection: PulseConnection
    private let logger: Logger
    private struct State {
        /// The server as of the last event (the connection's mirror, which changes only with events).
        var snapshot = PulseSnapshot()
        var attached = false
        /// Our mutes, by stream (``BorrowedValue``): a mute reported that is not ours is its
        /// user's, and so is the record it saves into.
        var mutes: [StreamID: BorrowedValue<Bool>] = [:]
        /// Changes we made that the server has not reported yet: once reported, a stream-restore
        /// record written back stays written.
        var unreported = UnreportedChanges()
        /// Runs once ``unreported`` is empty (the exit's write-back).
        var whenReported: (() -> Void)?
        var ports = PortTracker<DeviceID>()
        var profileSwitches = ProfileSwitchWatch()
        /// Devices' levels (sources: not monitors) and data sources as last reported.
        var deviceReports = DeviceReports()
        /// Our volumes, by stream (``BorrowedValue``): a volume reported that is none of
        /// ours is its user's; one that is ours is reported as we wrote it.
        var volumes: [StreamID: BorrowedValue<WrittenVolume>] = [:]
        /// The default sink's clock last reported (``BackendEvent/hardware(_:)``).
        var lastHardware: GraphHardware?
        /// The default devices last reported.
        var reportedDefaults: (output: String?, input: String?) = (nil, nil)
        /// The policy's default devices (``preferDefaultDevices(output:input:)``): a stream whose
        /// route is there follows PulseAudio's default.
        var policyDefaults: [PulseDevice.Kind: UInt32] = [:]
        /// Routes asked for in this loop turn, carried out at its end, once the policy's defaults
        /// of the same step are known (``ServerRoutedStreams``).
        var pendingRoutes: [StreamID: DeviceID] = [:]
        var sessionRoutes = ServerRoutedStreams()
        /// The watched playback streams' audibility (``watchLevel(of:threshold:)``), and their
        /// meters: PulseAudio ends a meter when its stream moves, so one is started again when a
        /// watched stream lands on a sink.
        var levels = HeardLevels()
        var meters: [UInt32: PulseLevelMeter] = [:]
    }

    private let state: LoopBound<State>
    private let parking: ParkingDevices
    private let roleModules: RoleModuleTakeover
    private let restoreRecords: StreamRestoreGuard
    private let defaults: DefaultDeviceChoice
    /// Where translated events go (the policy coordinator), wired before the loop runs.
    let onEvent = WiredOnce<(@Sendable (BackendEvent) -> Void)?>(fallback: nil)

    init(connection: PulseConnection, loop: DaemonLoop, stateDirectory: URL, logger: Logger) {
        self.connection = connection
        self.logger = logger
        restoreRecords = StreamRestoreGuard(connection: connection, loop: loop, stateDirectory: stateDirectory, logger: logger)
        parking = ParkingDevices(connection: connection, loop: loop, logger: logger)
        roleModules = RoleModuleTakeover(connection: connection, loop: loop, stateDirectory: stateDirectory, logger: logger)
        defaults = DefaultDeviceChoice(connection: connection, loop: loop, stateDirectory: stateDirectory, logger: logger)
        state = LoopBound(State(), on: loop)
        parking.snapshot.wire { [unowned self] in self.state.snapshot }
        restoreRecords.correctNewStream.wire { [unowned self] id in
            if let stream = self.stream(id) { _ = self.startedAsItsUserHadIt(stream) }
        }
        parking.willMove.wire { [unowned self] stream in
            self.state.unreported.moved(Self.id(of: stream))
            self.restoreRecords.willChange(stream)
        }
        parking.refused.wire { [unowned self] id in self.onEvent.value?(.holdRefused(id)) }
    }

    // MARK: - Server events in

    func handle(_ event: PulseEvent, in snapshot: PulseSnapshot) {
        state.snapshot = snapshot
        // Our own meters' record streams are nobody's session.
        switch event {
        case .streamAdded(let stream), .streamChanged(let stream, _), .streamRemoved(let stream):
            if PulseLevelMeter.isMeter(stream) { return }
        default:
            break
        }
        defer { finishExitIfSettled() }
        switch event {
        case .synced:
            state.attached = true
            state.sessionRoutes = ServerRoutedStreams()
            state.volumes.removeAll()
            state.ports.reset()
            state.mutes.removeAll()
            restoreRecords.attach(in: snapshot)
            // A meter's record left by a run that was killed.
            connection.deleteStreamRestore([PulseLevelMeter.restoreRecord])
            roleModules.attach(in: snapshot)
            defaults.attach(in: snapshot)
            parking.attach(in: snapshot)
            let streams = snapshot.sinkInputs.values.sorted { $0.index < $1.index }.compactMap(backendStream)
                + snapshot.sourceOutputs.values.filter { !PulseLevelMeter.isMeter($0) }.sorted { $0.index < $1.index }
                .compactMap(backendStream)
            let available = state.ports.attach(devices(in: snapshot).map { (Self.id(of: $0), offers($0)) })
            state.profileSwitches.attached(available)
            let defaults = defaultPortUIDs(in: snapshot)
            state.reportedDefaults = defaults
            onEvent.value?(.attached(streams: streams, ports: available, defaultOutput: defaults.output, defaultInput: defaults.input))
            state.lastHardware = nil
            reportHardware(in: snapshot)
            state.deviceReports.reset()
            for device in devices(in: snapshot) {
                reportLevels(of: device)
                reportDataSources(of: device)
            }
            for card in snapshot.cards.values.sorted(by: { $0.index < $1.index }) { reportProfile(of: card) }
            for stream in snapshot.sinkInputs.values { parking.adopt(stream, in: snapshot) }
            for stream in snapshot.sourceOutputs.values where !PulseLevelMeter.isMeter(stream) { parking.adopt(stream, in: snapshot) }
        case .disconnected:
            // A new server has none of our changes: nothing to undo there.
            state.attached = false
            state.sessionRoutes = ServerRoutedStreams()
            state.volumes.removeAll()
            state.mutes.removeAll()
            parking.lost()
            roleModules.lost()
            restoreRecords.lost()
            defaults.lost()
            state.ports.reset()
            state.profileSwitches.reset()
            state.deviceReports.reset()
            stopMetering()  // their record streams went with the connection
            onEvent.value?(.lost)
        case .streamAdded(let stream) where state.attached:
            let stream = startedAsItsUserHadIt(stream)
            if let backend = backendStream(stream) { onEvent.value?(.streamAppeared(backend)) }
            parking.adopt(stream, in: snapshot)
        case .streamChanged(let stream, let previous) where state.attached:
            state.unreported.reported(Self.id(of: stream), volume: stream.channelVolumes, muted: stream.muted)
            guard let backend = backendStream(stream) else { return }
            if stream.channelVolumes != previous.channelVolumes, let volume = reportedVolume(of: stream) {
                if state.volumes[backend.id]?.reported(WrittenVolume(reported: stream.channelVolumes)) != .ours {
                    restoreRecords.userChanged(stream)
                }
                onEvent.value?(.volumeReported(backend.id, volume))
            }
            if stream.muted != previous.muted, state.mutes[backend.id]?.reported(stream.muted) != .ours { restoreRecords.userChanged(stream) }
            onEvent.value?(.streamChanged(backend))
            if stream.device != previous.device {
                parking.adopt(stream, in: snapshot)
                if stream.kind == .sinkInput { meterIfWatched(stream) }
            }
        case .streamRemoved(let stream) where state.attached:
            let id = Self.id(of: stream)
            state.volumes[id] = nil
            state.mutes[id] = nil
            state.unreported.forget(id)
            state.sessionRoutes.forget(id)
            parking.forget(id)
            stopWatchingLevel(of: id)
            restoreRecords.streamGone(stream)
            onEvent.value?(.streamRemoved(id))
        case .deviceAdded(let device) where state.attached, .deviceChanged(let device, _) where state.attached:
            parking.deviceSeen(device)
            report(state.ports.refresh(Self.id(of: device), offers: offers(device)))
            reportDefaults(in: snapshot)  // the default device's active port may have moved (a jack)
            if device.kind == .sink { reportHardware(in: snapshot) }
            reportLevels(of: device)
            reportDataSources(of: device)
        case .deviceRemoved(let device) where state.attached:
            parking.deviceRemoved(device)
            report(state.ports.removed(Self.id(of: device)))
            report(state.deviceReports.removed(Self.id(of: device)))
        case .cardChanged(let card) where state.attached:
            reportProfile(of: card)
        case .cardRemoved(let card) where state.attached:
            // A headset disconnected: the ports that left with its profile are gone.
            report(state.profileSwitches.deviceRemoved(named: PulsePorts.cardID(card.index)))
            report(state.deviceReports.profile(nil, saved: false, ofCard: PulsePorts.cardID(card.index)))
        case .serverChanged where state.attached:
            reportDefaults(in: snapshot)
            reportHardware(in: snapshot)
        case .modulesChanged where state.attached:
            roleModules.modulesChanged(in: snapshot)
        default:
            break
        }
    }

    /// A new stream whose stream-restore record carries a change of ours (a duck, a silence, a
    /// mute of another stream of the same role or app) started with it: it gets the volume and
    /// mute the record had before, at once, so neither the policy nor its user sees our change
    /// on it. (Its device is ``ParkingDevices/adopt(_:in:)``'s.)
    private func startedAsItsUserHadIt(_ stream: PulseStream) -> PulseStream {
        guard let record = restoreRecords.recordBeforeOurChanges(for: stream) else { return stream }
        let id = Self.id(of: stream)
        var corrected = stream
        let before = record.before
        if stream.volumeWritable, !stream.channelVolumes.isEmpty {
            let loudest = before.flatMap { $0.volume.max() } ?? PulseVolume.norm  // no saved volume: PulseAudio's default
            let volumes = PulseVolume.scaled(stream.channelVolumes, toLoudest: loudest)
            if volumes != stream.channelVolumes {
                logger.debug("pulse: \(stream.kind.rawValue) \(stream.index) started at a volume of ours (its record); back to \(loudest)")
                wrote(WrittenVolume(linear: PulseVolume.linear([loudest]), as: loudest), to: stream)
                state.unreported.write(volume: volumes, of: id, current: stream.channelVolumes)
                connection.setVolume(volumes, of: stream.kind, stream.index)
                corrected.channelVolumes = volumes
            }
        }
        let muted = before?.muted ?? false
        if stream.muted != muted {
            wrote(muted: muted, to: stream)
            state.unreported.write(muted: muted, of: id, current: stream.muted)
            connection.setMute(muted, of: stream.kind, stream.index)
            corrected.muted = muted
        }
        if corrected != stream {
            if stream.kind == .sinkInput { state.snapshot.sinkInputs[stream.index] = corrected } else { state.snapshot.sourceOutputs[stream.index] = corrected }
        }
        return corrected
    }

    /// Backend events, with a port that goes while its card stays told as leaving with its
    /// card's profile (``ProfileSwitchWatch``).
    private func report(_ events: [BackendEvent]) {
        let cards = state.snapshot.cards.keys
        let translated = state.profileSwitches.translate(events) { device in cards.contains { PulsePorts.cardID($0) == device } }
        for event in translated { onEvent.value?(event) }
    }

    /// A card's active profile. PulseAudio does not say whether its user saved it: a client's
    /// choice always is (module-card-restore), and its own modules' switches never are
    /// (module-bluetooth-policy), so a switch is told as a route configuration change.
    private func reportProfile(of card: PulseCard) {
        report(state.deviceReports.profile(card.activeProfile, saved: false, ofCard: PulsePorts.cardID(card.index)))
    }

    /// The user's default changes, as port events; our own (``DefaultDeviceChoice``) coming
    /// back are not the user's and are not reported.
    private func reportDefaults(in snapshot: PulseSnapshot) {
        let current = defaultPortUIDs(in: snapshot)
        if current.output != state.reportedDefaults.output, let uid = current.output, defaults.reported(snapshot.server.defaultSinkName, .sink) {
            onEvent.value?(.defaultChanged(.output, uid: uid))
        }
        if current.input != state.reportedDefaults.input, let uid = current.input, defaults.reported(snapshot.server.defaultSourceName, .source) {
            onEvent.value?(.defaultChanged(.input, uid: uid))
        }
        state.reportedDefaults = current
    }

    /// The default sink's clock as the policy's ``GraphHardware``: its rate, and the latency it
    /// is configured for now (PulseAudio's equivalent of a quantum, in frames) as the only
    /// values it accepts. No client can set either (docs/pulseaudio.md), so a preference is
    /// reported with the values the server actually runs at, never as applied; they are also
    /// what its clock is observed at (a sink always has a rate and a configured latency; one
    /// without a latency yet has no clock to observe).
    private func reportHardware(in snapshot: PulseSnapshot) {
        guard let sink = snapshot.server.defaultSinkName.flatMap({ snapshot.device(named: $0, .sink) }), sink.sampleRate > 0 else { return }
        let frames = max(1, Int(sink.configuredLatency * UInt64(sink.sampleRate) / 1_000_000))
        let hardware = GraphHardware(
            sampleRate: sink.sampleRate, quantum: frames, allowedSampleRates: [sink.sampleRate], quantumRange: frames...frames)
        guard hardware != state.lastHardware else { return }
        state.lastHardware = hardware
        onEvent.value?(.hardware(hardware))
        onEvent.value?(.clockObserved(sink.configuredLatency > 0 ? RunningClock(sampleRate: sink.sampleRate, quantum: frames) : nil))
    }

    private func defaultPortUIDs(in snapshot: PulseSnapshot) -> (output: String?, input: String?) {
        let sink = snapshot.server.defaultSinkName.flatMap { snapshot.device(named: $0, .sink) }
        let source = snapshot.server.defaultSourceName.flatMap { snapshot.device(named: $0, .source) }
        return (sink.map(PulsePorts.activeUID), source.map(PulsePorts.activeUID))
    }

    /// Sinks, then sources, each in index order.
    private func devices(in snapshot: PulseSnapshot) -> [PulseDevice] {
        snapshot.sinks.values.sorted { $0.index < $1.index } + snapshot.sources.values.sorted { $0.index < $1.index }
    }

    /// The ports a device offers the policy (none for our parking devices).
    private func offers(_ device: PulseDevice) -> [PortTyping.Offer] {
        parking.isOurs(device) ? [] : PulsePorts.offers(for: device, rule: state.ports.typeRule)
    }

    /// What the user set on a device, when it differs from what was last reported: a sink's
    /// volume (PulseAudio's volumes are already on the volume control's cubic scale; above
    /// 100 % counts as 1), a source's mute (monitors are no microphones).
    private func reportLevels(of device: PulseDevice) {
        if device.kind == .sink {
            report(state.deviceReports.output(Self.id(of: device), volume: device.muted ? 0 : Self.controlVolume(device)))
        } else if device.monitorOf == nil, !parking.isOurs(device) {
            report(state.deviceReports.input(Self.id(of: device), volume: Self.controlVolume(device), muted: device.muted))
        }
    }

    /// A device's data sources (its ports), when they differ from what was last reported.
    private func reportDataSources(of device: PulseDevice) {
        guard !parking.isOurs(device) else { return }
        report(state.deviceReports.dataSources(PulsePorts.dataSources(of: device), of: Self.id(of: device)))
    }

    /// A device's volume as its volume control shows it (PulseAudio's volumes are already on
    /// that cubic scale; above 100 % counts as 1): its loudest channel.
    private static func controlVolume(_ device: PulseDevice) -> Double {
        let loudest = Double(device.channelVolumes.max() ?? 65_536)
        return min(1, (loudest / 65_536 * 10_000).rounded() / 10_000)
    }

    static func id(of device: PulseDevice) -> DeviceID {
        DeviceID(device.kind == .sink ? .output : .input, device.index)
    }

    static func id(of stream: PulseStream) -> StreamID {
        StreamID(stream.kind == .sinkInput ? .playback : .capture, stream.index)
    }

    private func backendStream(_ stream: PulseStream) -> BackendStream? {
        let properties = stream.properties
        let appName = properties["application.name"] ?? properties["application.process.binary"] ?? stream.name
        // libpulse fills in the pid and binary; PulseAudio does not check them.
        let statedPID = properties["application.process.id"].flatMap { Int32($0) }
        let capturesMonitor = stream.kind == .sourceOutput && state.snapshot.sources[parking.ownDevice(of: stream)]?.monitorOf != nil
        return BackendStream(
            id: Self.id(of: stream), client: stream.client ?? 0, connectionSerial: stream.client.map(UInt64.init),
            properties: properties,
            activity: stream.corked ? .pausedByUser : .playing, appName: appName, processID: statedPID,
            statedProcessID: statedPID, hardwareRequest: nil,
            namedSession: properties["audiosession.id"].flatMap { UInt64($0) }, capturesMonitor: capturesMonitor)
    }

    private func stream(_ id: StreamID) -> PulseStream? {
        id.direction == .playback ? state.snapshot.sinkInputs[id.rawValue] : state.snapshot.sourceOutputs[id.rawValue]
    }

    private static func kind(_ id: StreamID) -> PulseStream.Kind { id.direction == .playback ? .sinkInput : .sourceOutput }

    /// The stream's volume on the policy's linear scale: the value we wrote when the server's
    /// step is the one it became.
    private func reportedVolume(of stream: PulseStream) -> Float? {
        guard stream.volumeWritable, !stream.channelVolumes.isEmpty else { return nil }
        let reported = WrittenVolume(reported: stream.channelVolumes)
        return state.volumes[Self.id(of: stream)]?.write(reportedAs: reported)?.linear ?? reported.linear
    }

    /// We send `volume` for `stream`: a report of it is ours.
    private func wrote(_ volume: WrittenVolume, to stream: PulseStream) {
        let id = Self.id(of: stream)
        if state.volumes[id] == nil {
            state.volumes[id] = WrittenVolume.borrowed(from: stream.channelVolumes, writing: volume)
        } else {
            state.volumes[id]?.write(volume)
        }
    }

    /// We send `muted` for `stream`: a report of it is ours, until another mute is sent.
    private func wrote(muted: Bool, to stream: PulseStream) {
        let id = Self.id(of: stream)
        if state.mutes[id] == nil {
            state.mutes[id] = BorrowedValue(users: stream.muted, ours: muted, keepingEarlier: 0)
        } else {
            state.mutes[id]?.write(muted)
        }
    }

    // MARK: - Raw reads and writes

    func volume(of id: StreamID) -> Float? { stream(id).flatMap(reportedVolume) }

    func isMuted(_ id: StreamID) -> Bool? { stream(id)?.muted }

    /// PulseAudio reuses no index while it runs, and a restarted server starts again from 0:
    /// the server's random cookie tells the two apart.
    func identity(of id: StreamID) -> UInt64? {
        stream(id).map { UInt64(state.snapshot.server.cookie) << 32 | UInt64($0.index) }
    }

    var forcedQuantum: Int? { nil }
    var forcedSampleRate: Int? { nil }

    func writeVolume(_ volume: Float, of id: StreamID) {
        guard let stream = stream(id), stream.volumeWritable else { return }
        let step = PulseVolume.step(volume)
        wrote(WrittenVolume(linear: volume, as: step), to: stream)
        restoreRecords.willChange(stream)
        let channels = PulseVolume.scaled(stream.channelVolumes, toLoudest: step)
        state.unreported.write(volume: channels, of: id, current: stream.channelVolumes)
        connection.setVolume(channels, of: Self.kind(id), id.rawValue)
    }

    func writeMute(_ muted: Bool, of id: StreamID) {
        guard let stream = stream(id) else { return }
        wrote(muted: muted, to: stream)
        state.unreported.write(muted: muted, of: id, current: stream.muted)
        restoreRecords.willChange(stream)
        connection.setMute(muted, of: Self.kind(id), id.rawValue)
    }

    func forceQuantum(_ frames: Int?) {
        if frames != nil { logger.debug("pulse: the quantum cannot be forced on PulseAudio") }
    }

    func forceSampleRate(_ hertz: Int?) {
        if hertz != nil { logger.debug("pulse: the sample rate cannot be forced on PulseAudio") }
    }

    func inputVolume(of device: DeviceID) -> Double? {
        guard let source = self.device(device), source.kind == .source, source.monitorOf == nil else { return nil }
        return Self.controlVolume(source)
    }

    func writeInputVolume(_ volume: Double, of device: DeviceID) {
        guard let source = self.device(device), source.kind == .source else { return }
        let target = UInt32((min(max(volume, 0), 1) * 65_536).rounded())
        let channels = source.channelVolumes.isEmpty ? Array(repeating: UInt32(65_536), count: max(1, source.channels)) : source.channelVolumes
        let loudest = channels.max() ?? 0
        let scaled = channels.map { loudest > 0 ? UInt32((Double($0) / Double(loudest) * Double(target)).rounded()) : target }
        connection.setVolume(scaled, of: .source, source.index)
    }

    func inputChannelLevels(of device: DeviceID) -> [Double]? {
        guard let source = self.device(device), source.kind == .source, !source.channelVolumes.isEmpty else { return nil }
        return source.channelVolumes.map(Double.init)
    }

    func writeInputChannelLevels(_ levels: [Double], of device: DeviceID) {
        guard let source = self.device(device), source.kind == .source, !levels.isEmpty else { return }
        connection.setVolume(levels.map { UInt32(max(0, $0.rounded())) }, of: .source, source.index)
    }

    func name(of device: DeviceID) -> String? { self.device(device)?.name }

    func device(named name: String) -> DeviceID? {
        (state.snapshot.device(named: name, .source) ?? state.snapshot.device(named: name, .sink)).map(Self.id(of:))
    }

    func selectedDataSource(of device: DeviceID) -> UInt32? {
        guard let pulse = self.device(device), let active = pulse.activePort else { return nil }
        return pulse.ports.firstIndex { $0.name == active }.map(UInt32.init)
    }

    func selectDataSource(_ source: UInt32, of device: DeviceID) {
        guard let pulse = self.device(device), Int(source) < pulse.ports.count else { return }
        connection.setPort(pulse.ports[Int(source)].name, of: pulse.kind, pulse.index)
    }

    private func device(_ id: DeviceID) -> PulseDevice? {
        id.direction == .input ? state.snapshot.sources[id.rawValue] : state.snapshot.sinks[id.rawValue]
    }

    // MARK: - Holds, routes, what the backend can do

    func hold(_ id: StreamID) {
        guard let stream = stream(id) else { return }
        parking.park(stream, in: state.snapshot)
    }

    func release(_ id: StreamID) {
        parking.unpark(id, in: state.snapshot)
    }

    /// Whether a stream is held (parked, or waiting for the parking device).
    func isHeld(_ id: StreamID) -> Bool { parking.isHeld(id) }

    /// A session's route. PulseAudio routes every stream itself (its default, stream-restore,
    /// the stream's own choice): a route on the policy's default device leaves the stream to it,
    /// a session's own route elsewhere (a preferred input) moves the stream there and, when it
    /// ends, back to the default. Carried out at the end of the loop turn: the policy's new
    /// defaults come after the routes of the same step.
    func route(_ stream: StreamID, to devices: [DeviceID]) {
        guard state.attached, let target = devices.first else { return }
        if state.pendingRoutes.isEmpty {
            connection.performLater { [weak self] in self?.applyPendingRoutes() }
        }
        state.pendingRoutes[stream] = target
    }

    private func applyPendingRoutes() {
        let routes = state.pendingRoutes
        state.pendingRoutes.removeAll()
        guard state.attached else { return }
        for (id, target) in routes.sorted(by: { $0.key < $1.key }) {
            guard let stream = stream(id) else { continue }
            let kind = stream.kind.deviceKind
            let defaultDevice = state.policyDefaults[kind] ?? state.snapshot.defaultDevice(kind)?.index
            switch state.sessionRoutes.route(id, to: target.rawValue, defaultDevice: defaultDevice) {
            case .none:
                break
            case .move(let device):
                guard let device = state.snapshot.devices(kind)[device], !parking.isOurs(device) else { continue }
                if parking.isHeld(id) { parking.rehome(id, to: device.index); continue }
                logger.debug("pulse: \(stream.kind.rawValue) \(stream.index) → \(device.name) (its session's route)")
                move(stream, toDeviceNamed: nil, index: device.index)
            case .backToDefault:
                guard let device = state.snapshot.defaultDevice(kind) else { continue }
                if parking.isHeld(id) { parking.rehome(id, to: device.index); continue }
                logger.debug("pulse: \(stream.kind.rawValue) \(stream.index) → \(device.name) (its session's route ended: the default)")
                move(stream, toDeviceNamed: device.name, index: device.index)
            }
        }
    }

    /// Moves a stream (by name: PulseAudio then forgets its saved device, and it follows the
    /// default again); a stream that may not move stays. Sent even when our mirror says it is
    /// there already: a move of ours still on its way may take it elsewhere (the server does
    /// nothing for a move to where a stream is).
    private func move(_ stream: PulseStream, toDeviceNamed name: String?, index: UInt32) {
        state.unreported.moved(Self.id(of: stream))
        restoreRecords.willChange(stream)
        if let name {
            connection.move(stream.kind, stream.index, toDeviceNamed: name)
        } else {
            connection.move(stream.kind, stream.index, to: index) { [logger] moved in
                if !moved { logger.info("pulse: \(stream.kind.rawValue) \(stream.index) refuses to move: it stays where it is") }
            }
        }
    }

    /// Last in wins on PulseAudio: the policy's default becomes the server's default sink or
    /// source (``DefaultDeviceChoice``: journalled, and the user's own set again at exit).
    func preferDefaultDevices(output: DeviceID?, input: DeviceID?) {
        state.policyDefaults[.sink] = output?.rawValue
        state.policyDefaults[.source] = input?.rawValue
        guard state.attached else { return }
        for device in [output, input].compactMap({ $0 }) {
            let kind: PulseDevice.Kind = device.direction == .output ? .sink : .source
            guard let target = state.snapshot.devices(kind)[device.rawValue], !parking.isOurs(target) else { continue }
            defaults.choose(target.name, kind, in: state.snapshot)
        }
    }

    func pinnedDevice(of stream: StreamID) -> DeviceID? { nil }

    func usePortTypeRule(_ rule: @escaping @Sendable ([String: String]) -> PortType?) { state.ports.typeRule = rule }

    /// A peak meter on the sink input (``PulseLevelMeter``), while it plays on one of the
    /// user's sinks: a held stream, on our parking sink, is heard by nobody.
    func watchLevel(of stream: StreamID, threshold: Float) -> Bool {
        guard stream.direction == .playback, let input = state.snapshot.sinkInputs[stream.rawValue] else { return false }
        state.levels.watch(input.index, threshold: threshold)
        meterIfWatched(input)
        return true
    }

    func stopWatchingLevel(of stream: StreamID) {
        guard stream.direction == .playback, state.levels.unwatch(stream.rawValue) else { return }
        state.meters.removeValue(forKey: stream.rawValue)?.stop()
    }

    /// Every meter stopped and every stream unwatched (at exit, or with the connection gone).
    private func stopMetering() {
        for meter in state.meters.values { meter.stop() }
        state.meters.removeAll()
        state.levels.removeAll()
    }

    /// Starts a watched stream's meter where it plays now (a meter ends when its stream moves).
    private func meterIfWatched(_ input: PulseStream) {
        let index = input.index
        guard state.levels.isWatched(index), let sink = state.snapshot.sinks[input.device], !parking.isOurs(sink) else { return }
        state.meters.removeValue(forKey: index)?.stop()
        do {
            state.meters[index] = try PulseLevelMeter.start(
                on: index, in: connection,
                onPeak: { [weak self] peak in
                    guard let self, let audible = state.levels.heard(peak, on: index) else { return }
                    self.onEvent.value?(.streamAudible(StreamID(.playback, index), audible))
                },
                onEnd: { [weak self] reason in
                    guard let self else { return }
                    state.meters[index] = nil
                    self.logger.debug("pulse: the level meter of sink input \(index) ended (\(reason)): it moved or went")
                })
        } catch {
            logger.info("pulse: no level meter on sink input \(index) (\(error)): it is judged by whether it runs")
        }
    }

    var interruptionMethods: Set<InterruptionMethod> { [.unlink, .mute] }

    func setLinking(_ links: Bool, configuringDevicePorts: Bool) {}
    func withdrawDefaultMetadata() {}

    var routesItself: String? { "PulseAudio routes streams itself" }
    var switchesHeadsetsItself: String? { "PulseAudio switches them itself (module-bluetooth-policy)" }

    // MARK: - Exit

    /// Moves every held stream back, unloads the parking devices, loads PulseAudio's own role
    /// modules again and puts back the stream-restore records: the server is as it was.
    ///
    /// The records go back once the server has reported every change we made (enforcement's
    /// last volume writes, the moves back): it saves a change into the stream's record in a
    /// deferred callback, which would overwrite a write-back sent before it ran. Bounded by
    /// ``exitReportWait``.
    func undoServerChanges(then done: @escaping @Sendable () -> Void) {
        guard state.attached else { return done() }
        stopMetering()
        parking.releaseAll(in: state.snapshot)
        // Streams on a session's own route follow the default again (a held one after its
        // move back: the server carries out moves in order).
        for id in state.sessionRoutes.all {
            guard let stream = stream(id) else { continue }
            guard let device = state.snapshot.defaultDevice(stream.kind.deviceKind) else { continue }
            move(stream, toDeviceNamed: device.name, index: device.index)
        }
        roleModules.restore()
        defaults.restore(in: state.snapshot)
        let finish: () -> Void = { [restoreRecords, connection] in
            connection.deleteStreamRestore([PulseLevelMeter.restoreRecord])
            restoreRecords.restoreAll()
            done()
        }
        state.whenReported = finish
        parking.loadsSettled = { [weak self] in self?.finishExitIfSettled() }
        if state.unreported.isEmpty && !parking.isLoading { return finishExitIfSettled() }
        _ = connection.schedule(after: Self.exitReportWait) { [weak self] in self?.reportWaitTimedOut() }
    }

    /// The exit's last step, once the server reported every change of ours and answered every
    /// module load (``undoServerChanges(then:)``).
    private func finishExitIfSettled() {
        guard state.unreported.isEmpty, !parking.isLoading, let waiter = state.whenReported else { return }
        state.whenReported = nil
        waiter()
    }

    private func reportWaitTimedOut() {
        guard let waiter = state.whenReported else { return }
        logger.warning("pulse: \(state.unreported.count) changes not reported, \(parking.isLoading ? "a module load not answered, " : "")by the server in time; putting the records back anyway")
        state.whenReported = nil
        waiter()
    }

    /// How long the exit waits for the server to report our last changes.
    static let exitReportWait: Duration = .seconds(1)
}
