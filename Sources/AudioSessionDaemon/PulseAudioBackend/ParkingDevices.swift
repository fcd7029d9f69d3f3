import Logging
import PulseAudioServer
import SessionPolicy

/// Where held streams wait on PulseAudio: a null sink and a null source of ours, suspended, so
/// a stream moved there stops as an unlinked PipeWire stream does (its clock stops; its app
/// sees no error) and plays on when moved back.
///
/// Modules outlive the client that loaded them, so what a killed run left (the devices, and
/// streams on them) is found by name when the server is next seen: its streams go to the
/// default device and its modules are unloaded before ours are loaded. At exit every held
/// stream is moved back before the modules are unloaded.
///
/// A move is saved by `module-stream-restore` as the stream's preferred device; moving back to
/// the default device clears it again, moving to another device names that one (where it was).
final class ParkingDevices: Sendable {
    static let sinkName = "audiosession.hold"
    static let sourceName = "audiosession.hold-input"

    private let connection: PulseConnection
    private let logger: Logger
    private struct State {
        /// Our loaded modules and the devices they made, once the server has them.
        var modules: [PulseDevice.Kind: UInt32] = [:]
        var devices: [PulseDevice.Kind: UInt32] = [:]
        var loading: Set<PulseDevice.Kind> = []
        /// Held streams, with the device each was on (where it goes back to).
        var held: [StreamID: UInt32] = [:]
        /// Where each stream we moved to our device came from, kept after its release: a release
        /// that comes before the server reported the hold's move finds the stream not moved yet,
        /// and when the move then lands, the stream goes back there (not to the default).
        var homes: [StreamID: UInt32] = [:]
        /// A killed run's devices whose unloading we asked for: ours are loaded once they are gone
        /// (PulseAudio unloads a module a main-loop turn later, and a name still taken gets `.2`).
        var leftovers: [PulseDevice.Kind: Set<UInt32>] = [:]
        /// The daemon is exiting: nothing is loaded any more.
        var stopped = false
        /// Told when the last load of ours still in flight at exit has answered (and what it
        /// loaded is unloaded): a module loaded after the daemon left would stay on the server.
        var loadsSettled: () -> Void = {}

        /// Nothing of a server is known: it is gone, or seen anew (its modules went with it, or
        /// are a killed run's, found by name).
        mutating func forgetServer() {
            held.removeAll()
            homes.removeAll()
            modules.removeAll()
            devices.removeAll()
            loading.removeAll()
            leftovers.removeAll()
        }
    }

    private let state: LoopBound<State>

    /// Told when the last load of ours still in flight at exit has answered.
    var loadsSettled: () -> Void {
        get { state.loadsSettled }
        _modify { yield &state.loadsSettled }
    }

    /// The server as the backend saw it last.
    let snapshot = WiredOnce<@Sendable () -> PulseSnapshot>(fallback: { PulseSnapshot() })
    /// Told before each move of ours (the server saves moves in stream-restore records).
    let willMove = WiredOnce<@Sendable (PulseStream) -> Void>(fallback: { _ in })
    /// Told when the server refused to move a held stream to our device (one created with
    /// `PA_STREAM_DONT_MOVE`): it is not held, and plays on.
    let refused = WiredOnce<@Sendable (StreamID) -> Void>(fallback: { _ in })

    /// A module load of ours has not answered yet.
    var isLoading: Bool { !state.loading.isEmpty }

    init(connection: PulseConnection, loop: DaemonLoop, logger: Logger) {
        self.connection = connection
        self.logger = logger
        state = LoopBound(State(), on: loop)
    }

    private func move(_ stream: PulseStream, to device: UInt32) {
        willMove.value(stream)
        connection.move(stream.kind, stream.index, to: device)
    }

    /// Moves a held stream to our device. A stream that may not move stays where it is: it is
    /// no longer counted as held, and ``refused`` is told (a stream gone meanwhile is not).
    private func moveToParking(_ stream: PulseStream, _ parking: UInt32) {
        let id = PulseAudioBackend.id(of: stream)
        willMove.value(stream)
        connection.move(stream.kind, stream.index, to: parking) { [weak self] moved in
            guard !moved, let self, state.held[id] != nil, let now = self.stream(id), now.device != parking else { return }
            self.logger.info("pulse: \(stream.kind.rawValue) \(stream.index) refuses to move (created not to): not held")
            state.held[id] = nil
            state.homes[id] = nil
            self.refused.value(id)
        }
    }

    /// A device of ours, or one a killed run left: by its name (PulseAudio appends `.2`, `.3`
    /// when a name is taken), by the module we loaded, or as our sink's monitor.
    func isOurs(_ device: PulseDevice) -> Bool {
        Self.isParkingName(device.name, device.kind) || (device.ownerModule != nil && device.ownerModule == state.modules[device.kind])
            || (device.kind == .source && device.monitorOf.map { state.devices[.sink] == $0 } == true)
    }

    private static func isParkingName(_ name: String, _ kind: PulseDevice.Kind) -> Bool {
        let ours = Self.name(kind)
        return name == ours || (name.hasPrefix(ours + ".") && Int(name.dropFirst(ours.count + 1)) != nil)
    }

    private static func name(_ kind: PulseDevice.Kind) -> String { kind == .sink ? sinkName : sourceName }

    // MARK: - The server

    /// The server is seen (first, or after a restart of either side): a killed run's devices
    /// are emptied and unloaded, then ours are loaded.
    func attach(in snapshot: PulseSnapshot) {
        state.value.forgetServer()
        for kind in [PulseDevice.Kind.sink, .source] {
            for leftover in snapshot.devices(kind).values where Self.isParkingName(leftover.name, kind) {
                let streams = snapshot.streams(kind == .sink ? .sinkInput : .sourceOutput).values.filter { $0.device == leftover.index }
                logger.info("pulse: a previous run left \(leftover.name) with \(streams.count) streams; moving them back")
                for stream in streams { moveToDefault(stream, in: snapshot) }
                guard let module = leftover.ownerModule else { continue }
                state.leftovers[kind, default: []].insert(leftover.index)
                connection.unloadModule(module)
            }
            if state.leftovers[kind]?.isEmpty ?? true { load(kind) }
        }
    }

    /// The server is gone, and our modules with it.
    func lost() {
        state.value.forgetServer()
    }

    private func load(_ kind: PulseDevice.Kind) {
        guard !state.stopped, !state.loading.contains(kind), state.modules[kind] == nil else { return }
        state.loading.insert(kind)
        let name = Self.name(kind)
        let argument = kind == .sink
            ? "sink_name=\(name) sink_properties=device.description=audiosession-hold"
            : "source_name=\(name) description=audiosession-hold"
        connection.loadModule(kind == .sink ? "module-null-sink" : "module-null-source", argument: argument) { [weak self] index in
            self?.loaded(kind, module: index)
        }
    }

    private func loaded(_ kind: PulseDevice.Kind, module: UInt32?) {
        state.loading.remove(kind)
        if state.stopped {
            // Asked for before the exit began (a server restart just before it): gone again.
            if let module { connection.unloadModule(module) }
            if state.loading.isEmpty { state.loadsSettled() }
            return
        }
        guard let module else {
            logger.error("pulse: cannot load the \(kind) held streams wait on; holds mute instead")
            return
        }
        state.modules[kind] = module
        if let device = snapshot.value().devices(kind).values.first(where: { $0.ownerModule == module }) { deviceSeen(device) }
    }

    /// A sink or source appeared or changed: ours is suspended as soon as it exists, and the
    /// streams held before it did are moved there.
    func deviceSeen(_ device: PulseDevice) {
        guard let module = state.modules[device.kind], device.ownerModule == module else { return }
        if state.devices[device.kind] == nil {
            state.devices[device.kind] = device.index
            logger.debug("pulse: \(device.name) is \(device.kind) \(device.index)")
        }
        if device.state != .suspended { connection.suspend(device.kind, device.index, true) }
        for (id, _) in state.held where (id.direction == .playback) == (device.kind == .sink) {
            if let stream = stream(id), stream.device != device.index {
                moveToParking(stream, device.index)
            }
        }
    }

    /// Our device is gone (someone unloaded its module): it is loaded again; the streams it
    /// held went to the default device with it, and go back once it is there.
    func deviceRemoved(_ device: PulseDevice) {
        if state.leftovers[device.kind]?.remove(device.index) != nil {
            if state.leftovers[device.kind]?.isEmpty == true { load(device.kind) }  // the name is free now
            return
        }
        guard state.devices[device.kind] == device.index else { return }
        logger.warning("pulse: \(device.name), where held streams wait, was unloaded; loading it again")
        state.devices[device.kind] = nil
        state.modules[device.kind] = nil
        load(device.kind)
    }

    // MARK: - Streams

    private func stream(_ id: StreamID) -> PulseStream? {
        id.direction == .playback ? snapshot.value().sinkInputs[id.rawValue] : snapshot.value().sourceOutputs[id.rawValue]
    }

    /// Holds a stream: moved to our device (at once, or when it exists).
    func park(_ stream: PulseStream, in snapshot: PulseSnapshot) {
        let id = PulseAudioBackend.id(of: stream)
        let kind = stream.kind.deviceKind
        guard let parking = state.devices[kind] else {
            if state.held[id] == nil { state.held[id] = stream.device }
            return
        }
        if stream.device != parking {
            state.held[id] = stream.device
            state.homes[id] = stream.device
            logger.debug("pulse: holding \(stream.kind.rawValue) \(stream.index): \(kind) \(stream.device) → \(parking)")
            moveToParking(stream, parking)
        } else if state.held[id] == nil {
            state.held[id] = defaultDevice(kind, in: snapshot)?.index ?? stream.device
        }
    }

    /// Releases a stream: back to the device it was on, or the default when that is gone.
    func unpark(_ id: StreamID, in snapshot: PulseSnapshot) {
        guard let from = state.held.removeValue(forKey: id), let stream = stream(id), isParkedOrOnItsWay(stream, from: from)
        else { return }
        logger.debug("pulse: releasing \(stream.kind.rawValue) \(stream.index) to \(stream.kind.deviceKind) \(from)")
        moveBack(stream, to: from, in: snapshot)
    }

    /// On our device, or still where it was held from: the move to our device may not be
    /// reported yet (a call that ends, or a daemon stopped, a few milliseconds after it began),
    /// and the server carries out moves in order, so a move back sent now follows it. Left
    /// unmoved, it would arrive on our device after its release and stay there, and unloading
    /// our device would leave that device in its stream-restore record. A stream its user
    /// moved elsewhere meanwhile stays there.
    private func isParkedOrOnItsWay(_ stream: PulseStream, from: UInt32) -> Bool {
        stream.device == state.devices[stream.kind.deviceKind] || stream.device == from
    }

    private func moveBack(_ stream: PulseStream, to device: UInt32, in snapshot: PulseSnapshot) {
        let kind = stream.kind.deviceKind
        let defaultDevice = defaultDevice(kind, in: snapshot)
        if let target = snapshot.devices(kind)[device], !isOurs(target), target.index != defaultDevice?.index {
            move(stream, to: target.index)
        } else {
            moveToDefault(stream, in: snapshot)
        }
    }

    /// To the default device by name: PulseAudio then forgets the stream's saved device, so it
    /// follows the default again as before the hold.
    private func moveToDefault(_ stream: PulseStream, in snapshot: PulseSnapshot) {
        let kind = stream.kind.deviceKind
        guard let name = kind == .sink ? snapshot.server.defaultSinkName : snapshot.server.defaultSourceName, !Self.isParkingName(name, kind) else {
            return
        }
        willMove.value(stream)
        connection.move(stream.kind, stream.index, toDeviceNamed: name)
    }

    private func defaultDevice(_ kind: PulseDevice.Kind, in snapshot: PulseSnapshot) -> PulseDevice? {
        (kind == .sink ? snapshot.server.defaultSinkName : snapshot.server.defaultSourceName).flatMap { snapshot.device(named: $0, kind) }
    }

    /// A stream appeared or moved. On our device without being held (the server restored it
    /// there: its saved device is ours since its app's last stream was held), it goes to the
    /// default device; held and moved off by someone else, it goes back.
    func adopt(_ stream: PulseStream, in snapshot: PulseSnapshot) {
        let id = PulseAudioBackend.id(of: stream)
        let kind = stream.kind.deviceKind
        guard let parking = state.devices[kind] else { return }
        if let from = state.held[id] {
            if stream.device != parking {
                if stream.device != from { state.held[id] = stream.device }
                moveToParking(stream, parking)
            }
        } else if stream.device == parking {
            if let home = state.homes[id] {
                logger.debug("pulse: \(stream.kind.rawValue) \(stream.index) reached our device after its release; back to \(home)")
                moveBack(stream, to: home, in: snapshot)
            } else {
                logger.debug("pulse: \(stream.kind.rawValue) \(stream.index) arrived on our device; to the default")
                moveToDefault(stream, in: snapshot)
            }
        }
    }

    /// A held stream's route changed: it goes back there on release.
    func rehome(_ id: StreamID, to device: UInt32) {
        guard state.held[id] != nil else { return }
        state.held[id] = device
        state.homes[id] = device
    }

    func forget(_ id: StreamID) {
        state.held[id] = nil
        state.homes[id] = nil
    }

    func isHeld(_ id: StreamID) -> Bool { state.held[id] != nil }

    /// The device a stream is on, or, while it waits on ours, the one it came from: what it is
    /// judged by (a capture of a monitor stays one while held).
    func ownDevice(of stream: PulseStream) -> UInt32 {
        let id = PulseAudioBackend.id(of: stream)
        guard stream.device == state.devices[stream.kind.deviceKind], let home = state.held[id] ?? state.homes[id] else { return stream.device }
        return home
    }

    /// The daemon is exiting: every held stream goes back, then our modules are unloaded.
    func releaseAll(in snapshot: PulseSnapshot) {
        state.stopped = true
        for (id, from) in state.held.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if let stream = stream(id), isParkedOrOnItsWay(stream, from: from) { moveBack(stream, to: from, in: snapshot) }
        }
        state.held.removeAll()
        for (kind, parking) in state.devices {
            // Streams that came there on their own since.
            for stream in snapshot.streams(kind == .sink ? .sinkInput : .sourceOutput).values where stream.device == parking {
                moveToDefault(stream, in: snapshot)
            }
        }
        for module in state.modules.values.sorted() { connection.unloadModule(module) }
        state.modules.removeAll()
        state.devices.removeAll()
    }
}
