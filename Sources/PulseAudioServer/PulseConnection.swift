import CPulse
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One libpulse connection on its own loop thread (`pa_threaded_mainloop`): mirrors the
/// server in a ``PulseSnapshot``, reports every change to one observer on that thread, carries
/// out raw actions, and runs the daemon's work and timers there too, so what it mirrors needs
/// no lock. Decides nothing.
///
/// The loop thread sleeps in poll with no timeout while nothing is pending: an idle connection
/// never wakes up. When the server goes away (or is not there yet) it tries again every
/// ``reconnectDelay``.
public final class PulseConnection: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// The server to attach to (`unix:/path`); nil: libpulse's usual choice (`PULSE_SERVER`,
        /// then the user's runtime directory).
        public var server: String?
        public var applicationName: String

        public init(server: String? = nil, applicationName: String) {
            self.server = server
            self.applicationName = applicationName
        }
    }

    public typealias Observer = (PulseEvent, PulseSnapshot) -> Void

    /// How long to wait before connecting again after the server went away or refused.
    public static let reconnectDelay: Duration = .milliseconds(500)

    private let configuration: Configuration
    private let logger: Logger
    private let mainloop: OpaquePointer
    private let api: UnsafeMutablePointer<pa_mainloop_api>
    /// The current context; a replaced one is dropped, and its late callbacks ignored.
    private var context: OpaquePointer?
    private var observer: Observer?
    /// The server as last seen; empty while disconnected.
    public private(set) var snapshot = PulseSnapshot()
    /// The initial queries answered since the last connect; events are reported once all are.
    private var synced = false
    private var pendingSyncQueries = 0
    private var started = false
    private var stopping = false
    /// The thread our queued work and timers last ran on (``isOnLoopThread``); 0 when stopped.
    private let workThread = Atomic<UInt>(0)
    private let failure = Mutex<String?>(nil)

    /// Why the last attempt to connect failed, until one succeeds: a one-shot tool reports it
    /// instead of waiting for the retries.
    public var connectionProblem: String? { failure.withLock { $0 } }

    private func setConnectionProblem(_ problem: String?) { failure.withLock { $0 = problem } }

    /// libpulse must be loaded first (``PulseLibrary/load()``).
    public init(configuration: Configuration, logger: Logger) {
        precondition(PulseLibrary.load() == nil, "PulseConnection without libpulse: \(PulseLibrary.load() ?? "")")
        self.configuration = configuration
        self.logger = logger
        // NULL only when memory is exhausted.
        mainloop = libpulse.pa_threaded_mainloop_new()!
        api = libpulse.pa_threaded_mainloop_get_api(mainloop)!
    }

    deinit {
        if let context { libpulse.pa_context_unref(context) }
        libpulse.pa_threaded_mainloop_free(mainloop)
    }

    /// Where events go; set before ``start()``.
    public func setObserver(_ observer: @escaping Observer) {
        self.observer = observer
    }

    /// Starts the loop thread and connects.
    public func start() {
        precondition(!started, "PulseConnection started twice")
        started = true
        _ = libpulse.pa_threaded_mainloop_start(mainloop)
        perform { [self] in connect() }
    }

    /// Disconnects and stops the loop thread; call from any other thread.
    public func stop() {
        precondition(!isOnLoopThread, "PulseConnection.stop() on its own loop thread")
        guard started else { return }
        libpulse.pa_threaded_mainloop_lock(mainloop)
        stopping = true
        if let context {
            // Disconnecting reports its state change on this thread: nobody is told any more.
            libpulse.pa_context_set_state_callback(context, nil, nil)
            libpulse.pa_context_set_subscribe_callback(context, nil, nil)
            libpulse.pa_context_disconnect(context)
        }
        libpulse.pa_threaded_mainloop_unlock(mainloop)
        libpulse.pa_threaded_mainloop_stop(mainloop)
        workThread.store(0, ordering: .releasing)  // joined: its id may be reused
        started = false
    }

    // MARK: - The loop

    /// Whether the caller is the loop thread. libpulse's own answer is false for the loop's first
    /// turn when that comes before `pa_threaded_mainloop_start` has stored the thread it made,
    /// so each piece of our work notes the thread it runs on as well.
    public var isOnLoopThread: Bool {
        if libpulse.pa_threaded_mainloop_in_thread(mainloop) != 0 { return true }
        let noted = workThread.load(ordering: .acquiring)
        return noted != 0 && pthread_equal(pthread_t(noted), pthread_self()) != 0
    }

    private func noteWorkThread() {
        let current = UInt(pthread_self())
        if workThread.load(ordering: .relaxed) != current { workThread.store(current, ordering: .releasing) }
    }

    /// Runs `work` on the loop thread: at once when called there.
    public func perform(_ work: @escaping @Sendable () -> Void) {
        if isOnLoopThread { work() } else { performLater(work) }
    }

    /// Runs `work` on the loop thread in its next turn (never at once).
    public func performLater(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(WorkBox { [self] in
            noteWorkThread()
            work()
        }).toOpaque()
        locked {
            libpulse.pa_mainloop_api_once(api, { _, userdata in
                Unmanaged<WorkBox>.fromOpaque(userdata!).takeRetainedValue().work()
            }, box)
        }
    }

    /// Runs `work` on the loop thread after `delay`.
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> PulseTimer {
        let timer = PulseTimer(connection: self) { [self] in
            noteWorkThread()
            work()
        }
        let (seconds, attoseconds) = delay.components
        let microseconds = UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
        locked {
            var when = timeval()
            _ = libpulse.pa_gettimeofday(&when)
            _ = libpulse.pa_timeval_add(&when, microseconds)
            let box = Unmanaged.passRetained(timer).toOpaque()
            timer.event = api.pointee.time_new(api, &when, { _, _, _, userdata in
                Unmanaged<PulseTimer>.fromOpaque(userdata!).takeRetainedValue().fire()
            }, box)
        }
        return timer
    }

    fileprivate func freeTimeEvent(_ event: OpaquePointer) {
        locked { api.pointee.time_free(event) }
    }

    /// Runs `body` with the loop's lock held (it is held already on the loop thread).
    private func locked(_ body: () -> Void) {
        if isOnLoopThread { body(); return }
        libpulse.pa_threaded_mainloop_lock(mainloop)
        body()
        libpulse.pa_threaded_mainloop_unlock(mainloop)
    }

    // MARK: - Connecting

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    fileprivate static func connection(_ userdata: UnsafeMutableRawPointer?) -> PulseConnection {
        Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private func connect() {
        guard !stopping else { return }
        if let old = context {
            libpulse.pa_context_set_state_callback(old, nil, nil)
            libpulse.pa_context_set_subscribe_callback(old, nil, nil)
            libpulse.pa_context_disconnect(old)
            libpulse.pa_context_unref(old)
        }
        guard let context = libpulse.pa_context_new(api, configuration.applicationName) else {
            logger.error("pulse: cannot create a context")
            return
        }
        self.context = context
        libpulse.pa_context_set_state_callback(context, { context, userdata in
            PulseConnection.connection(userdata).stateChanged(context)
        }, userdata)
        libpulse.pa_context_set_subscribe_callback(context, { context, type, index, userdata in
            PulseConnection.connection(userdata).subscriptionEvent(context, type, index)
        }, userdata)
        let flags = pa_context_flags_t(rawValue: PA_CONTEXT_NOAUTOSPAWN.rawValue)
        if libpulse.pa_context_connect(context, configuration.server, flags, nil) < 0 {
            let reason = lastError(of: context)
            logger.debug("pulse: connect failed: \(reason)")
            setConnectionProblem("PulseAudio at \(configuration.server ?? "the default server"): \(reason)")
            connectAgainLater()
        }
    }

    private func connectAgainLater() {
        _ = schedule(after: Self.reconnectDelay) { [weak self] in self?.connect() }
    }

    private func stateChanged(_ context: OpaquePointer?) {
        guard let context, context == self.context else { return }
        switch libpulse.pa_context_get_state(context) {
        case PA_CONTEXT_READY:
            setConnectionProblem(nil)
            logger.debug("pulse: connected to \(configuration.server ?? "the default server")")
            if let operation = libpulse.pa_context_subscribe(context, PA_SUBSCRIPTION_MASK_ALL, nil, nil) { libpulse.pa_operation_unref(operation) }
            synchronize(context)
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            let reason = lastError(of: context)
            setConnectionProblem("PulseAudio at \(configuration.server ?? "the default server"): \(reason)")
            let wasSynced = synced
            synced = false
            snapshot = PulseSnapshot()
            if wasSynced { observer?(.disconnected(reason: reason), snapshot) }
            if !stopping {
                if wasSynced { logger.warning("pulse: the server went away (\(reason)); connecting again") }
                connectAgainLater()
            }
        default:
            break
        }
    }

    /// Reads all of the server: server info, devices, streams, clients, modules, cards.
    private func synchronize(_ context: OpaquePointer) {
        snapshot = PulseSnapshot()
        synced = false
        pendingSyncQueries = 8
        take(libpulse.pa_context_get_server_info(context, Self.serverInfoCallback, userdata))
        take(libpulse.pa_context_get_sink_info_list(context, Self.sinkCallback, userdata))
        take(libpulse.pa_context_get_source_info_list(context, Self.sourceCallback, userdata))
        take(libpulse.pa_context_get_sink_input_info_list(context, Self.sinkInputCallback, userdata))
        take(libpulse.pa_context_get_source_output_info_list(context, Self.sourceOutputCallback, userdata))
        take(libpulse.pa_context_get_client_info_list(context, Self.clientCallback, userdata))
        take(libpulse.pa_context_get_module_info_list(context, Self.moduleCallback, userdata))
        take(libpulse.pa_context_get_card_info_list(context, Self.cardCallback, userdata))
    }

    private func take(_ operation: OpaquePointer?) {
        if let operation { libpulse.pa_operation_unref(operation) }
    }

    /// One query of the initial read is answered (its end of list).
    private func syncQueryDone(_ context: OpaquePointer?) {
        guard context == self.context, !synced else { return }
        pendingSyncQueries -= 1
        if pendingSyncQueries == 0 {
            synced = true
            logger.info("pulse: \(snapshot.server.serverName) \(snapshot.server.serverVersion): \(snapshot.sinks.count) sinks, \(snapshot.sources.count) sources, \(snapshot.sinkInputs.count + snapshot.sourceOutputs.count) streams")
            observer?(.synced, snapshot)
        }
    }

    // MARK: - Events in

    private func subscriptionEvent(_ context: OpaquePointer?, _ type: pa_subscription_event_type_t, _ index: UInt32) {
        guard let context, context == self.context else { return }
        let facility = pa_subscription_event_type_t(rawValue: type.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue)
        let removed = type.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue
        switch facility {
        case PA_SUBSCRIPTION_EVENT_SINK_INPUT:
            if removed { removeStream(.sinkInput, index) } else { take(libpulse.pa_context_get_sink_input_info(context, index, Self.sinkInputCallback, userdata)) }
        case PA_SUBSCRIPTION_EVENT_SOURCE_OUTPUT:
            if removed { removeStream(.sourceOutput, index) } else { take(libpulse.pa_context_get_source_output_info(context, index, Self.sourceOutputCallback, userdata)) }
        case PA_SUBSCRIPTION_EVENT_SINK:
            if removed { removeDevice(.sink, index) } else { take(libpulse.pa_context_get_sink_info_by_index(context, index, Self.sinkCallback, userdata)) }
        case PA_SUBSCRIPTION_EVENT_SOURCE:
            if removed { removeDevice(.source, index) } else { take(libpulse.pa_context_get_source_info_by_index(context, index, Self.sourceCallback, userdata)) }
        case PA_SUBSCRIPTION_EVENT_CLIENT:
            if removed {
                if let client = snapshot.clients.removeValue(forKey: index), synced { observer?(.clientRemoved(client), snapshot) }
            } else {
                take(libpulse.pa_context_get_client_info(context, index, Self.clientCallback, userdata))
            }
        case PA_SUBSCRIPTION_EVENT_MODULE:
            if removed {
                if snapshot.modules.removeValue(forKey: index) != nil, synced { observer?(.modulesChanged, snapshot) }
            } else {
                take(libpulse.pa_context_get_module_info(context, index, Self.moduleCallback, userdata))
            }
        case PA_SUBSCRIPTION_EVENT_SERVER:
            take(libpulse.pa_context_get_server_info(context, Self.serverInfoCallback, userdata))
        case PA_SUBSCRIPTION_EVENT_CARD:
            // A profile switch: its old sinks' and sources' removals come first, its card's change after.
            if removed {
                if let card = snapshot.cards.removeValue(forKey: index), synced { observer?(.cardRemoved(card), snapshot) }
            } else {
                take(libpulse.pa_context_get_card_info_by_index(context, index, Self.cardCallback, userdata))
            }
        default:
            break
        }
    }

    private func removeStream(_ kind: PulseStream.Kind, _ index: UInt32) {
        let gone = kind == .sinkInput ? snapshot.sinkInputs.removeValue(forKey: index) : snapshot.sourceOutputs.removeValue(forKey: index)
        if let gone, synced { observer?(.streamRemoved(gone), snapshot) }
    }

    private func removeDevice(_ kind: PulseDevice.Kind, _ index: UInt32) {
        let gone = kind == .sink ? snapshot.sinks.removeValue(forKey: index) : snapshot.sources.removeValue(forKey: index)
        if let gone, synced { observer?(.deviceRemoved(gone), snapshot) }
    }

    fileprivate func upsert(_ stream: PulseStream) {
        let previous = snapshot.streams(stream.kind)[stream.index]
        guard previous != stream else { return }
        if stream.kind == .sinkInput { snapshot.sinkInputs[stream.index] = stream } else { snapshot.sourceOutputs[stream.index] = stream }
        guard synced else { return }
        if let previous { observer?(.streamChanged(stream, previous: previous), snapshot) } else { observer?(.streamAdded(stream), snapshot) }
    }

    fileprivate func upsert(_ device: PulseDevice) {
        let previous = snapshot.devices(device.kind)[device.index]
        guard previous != device else { return }
        if device.kind == .sink { snapshot.sinks[device.index] = device } else { snapshot.sources[device.index] = device }
        guard synced else { return }
        if let previous { observer?(.deviceChanged(device, previous: previous), snapshot) } else { observer?(.deviceAdded(device), snapshot) }
    }

    fileprivate func upsert(_ client: PulseClient) {
        guard snapshot.clients[client.index] != client else { return }
        snapshot.clients[client.index] = client
        if synced { observer?(.clientChanged(client), snapshot) }
    }

    fileprivate func upsert(_ card: PulseCard) {
        guard snapshot.cards[card.index] != card else { return }
        snapshot.cards[card.index] = card
        if synced { observer?(.cardChanged(card), snapshot) }
    }

    fileprivate func upsert(_ module: PulseModule) {
        guard snapshot.modules[module.index] != module else { return }
        snapshot.modules[module.index] = module
        if synced { observer?(.modulesChanged, snapshot) }
    }

    fileprivate func update(_ server: PulseServerInfo) {
        let previous = snapshot.server
        guard previous != server else { return }
        snapshot.server = server
        if synced { observer?(.serverChanged(server, previous: previous), snapshot) }
    }

    fileprivate func answered(_ context: OpaquePointer?, endOfList: Int32, initial: Bool) {
        if endOfList != 0, initial { syncQueryDone(context) }
    }

    fileprivate func isCurrent(_ context: OpaquePointer?) -> Bool { context == self.context }

    fileprivate var isSynchronizing: Bool { !synced }

    // MARK: - Actions out (each fire and forget unless it says otherwise)

    /// Runs `body` with the connected context (nothing when disconnected) and releases the
    /// operation it starts.
    func withReadyContext(_ body: (OpaquePointer) -> OpaquePointer?) { withContext(body) }

    private func withContext(_ body: (OpaquePointer) -> OpaquePointer?) {
        locked {
            guard let context, libpulse.pa_context_get_state(context) == PA_CONTEXT_READY else { return }
            take(body(context))
        }
    }

    /// Sets a stream's per-channel volumes (as many as it has channels).
    public func setVolume(_ channelVolumes: [UInt32], of kind: PulseStream.Kind, _ index: UInt32) {
        var volume = PulseVolume.cvolume(channelVolumes)
        withContext { context in
            kind == .sinkInput
                ? libpulse.pa_context_set_sink_input_volume(context, index, &volume, nil, nil)
                : libpulse.pa_context_set_source_output_volume(context, index, &volume, nil, nil)
        }
    }

    /// Sets a sink's or source's per-channel volumes (as many as it has channels).
    public func setVolume(_ channelVolumes: [UInt32], of kind: PulseDevice.Kind, _ index: UInt32) {
        var volume = PulseVolume.cvolume(channelVolumes)
        withContext { context in
            kind == .sink
                ? libpulse.pa_context_set_sink_volume_by_index(context, index, &volume, nil, nil)
                : libpulse.pa_context_set_source_volume_by_index(context, index, &volume, nil, nil)
        }
    }

    /// Makes one of a sink's or source's ports the active one.
    public func setPort(_ port: String, of kind: PulseDevice.Kind, _ index: UInt32) {
        withContext { context in
            kind == .sink
                ? libpulse.pa_context_set_sink_port_by_index(context, index, port, nil, nil)
                : libpulse.pa_context_set_source_port_by_index(context, index, port, nil, nil)
        }
    }

    public func setMute(_ muted: Bool, of kind: PulseStream.Kind, _ index: UInt32) {
        withContext { context in
            kind == .sinkInput
                ? libpulse.pa_context_set_sink_input_mute(context, index, muted ? 1 : 0, nil, nil)
                : libpulse.pa_context_set_source_output_mute(context, index, muted ? 1 : 0, nil, nil)
        }
    }

    /// Moves a stream to another sink or source; `done` says whether the server agreed (a
    /// stream created with `PA_STREAM_DONT_MOVE` refuses).
    public func move(_ kind: PulseStream.Kind, _ index: UInt32, to device: UInt32, done: (@Sendable (Bool) -> Void)? = nil) {
        let box = done.map { Unmanaged.passRetained(SuccessBox($0)).toOpaque() }
        let callback: pa_context_success_cb_t? = done == nil ? nil : { _, success, userdata in
            Unmanaged<SuccessBox>.fromOpaque(userdata!).takeRetainedValue().body(success != 0)
        }
        var sent = false
        withContext { context in
            sent = true
            return kind == .sinkInput
                ? libpulse.pa_context_move_sink_input_by_index(context, index, device, callback, box)
                : libpulse.pa_context_move_source_output_by_index(context, index, device, callback, box)
        }
        if !sent, let box { Unmanaged<SuccessBox>.fromOpaque(box).takeRetainedValue().body(false) }
    }

    /// Loads a module; `done` gets its index, nil when the server refused.
    public func loadModule(_ name: String, argument: String, done: @escaping @Sendable (UInt32?) -> Void) {
        let box = Unmanaged.passRetained(IndexBox(done)).toOpaque()
        var sent = false
        withContext { context in
            sent = true
            return libpulse.pa_context_load_module(context, name, argument, { _, index, userdata in
                Unmanaged<IndexBox>.fromOpaque(userdata!).takeRetainedValue().body(index == pulseInvalidIndex ? nil : index)
            }, box)
        }
        if !sent { Unmanaged<IndexBox>.fromOpaque(box).takeRetainedValue().body(nil) }
    }

    public func unloadModule(_ index: UInt32) {
        withContext { libpulse.pa_context_unload_module($0, index, nil, nil) }
    }

    /// Suspends a sink or source (the user's cause: it stays suspended while streams are moved
    /// onto it) or resumes it.
    public func suspend(_ kind: PulseDevice.Kind, _ index: UInt32, _ suspended: Bool) {
        withContext { context in
            kind == .sink
                ? libpulse.pa_context_suspend_sink_by_index(context, index, suspended ? 1 : 0, nil, nil)
                : libpulse.pa_context_suspend_source_by_index(context, index, suspended ? 1 : 0, nil, nil)
        }
    }

    /// Moves a stream to the sink or source of that name.
    public func move(_ kind: PulseStream.Kind, _ index: UInt32, toDeviceNamed name: String) {
        withContext { context in
            kind == .sinkInput
                ? libpulse.pa_context_move_sink_input_by_name(context, index, name, nil, nil)
                : libpulse.pa_context_move_source_output_by_name(context, index, name, nil, nil)
        }
    }

    public func setDefault(_ kind: PulseDevice.Kind, name: String) {
        withContext { context in
            kind == .sink ? libpulse.pa_context_set_default_sink(context, name, nil, nil) : libpulse.pa_context_set_default_source(context, name, nil, nil)
        }
    }

    /// Reads every stream again, then calls `done` on the loop thread: a stream the server made
    /// before the requests sent so far landed is known by then, even one whose announcement has
    /// not come yet (PulseAudio sends its subscription events from a deferred callback, after the
    /// answers of the same turn).
    public func refreshStreams(then done: @escaping @Sendable () -> Void) {
        withContext { context in
            take(libpulse.pa_context_get_sink_input_info_list(context, Self.sinkInputCallback, userdata))
            return libpulse.pa_context_get_source_output_info_list(context, Self.sourceOutputCallback, userdata)
        }
        roundTrip(done)
    }

    /// Calls `done` on the loop thread once the server has answered everything sent before.
    public func roundTrip(_ done: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(WorkBox(done)).toOpaque()
        var sent = false
        withContext { context in
            sent = true
            return libpulse.pa_context_get_server_info(context, { _, _, userdata in
                Unmanaged<WorkBox>.fromOpaque(userdata!).takeRetainedValue().work()
            }, box)
        }
        if !sent { Unmanaged<WorkBox>.fromOpaque(box).takeRetainedValue().work() }
    }
}

/// A pending timer of ``PulseConnection``'s loop; `cancel()` is safe after it fired.
public final class PulseTimer: @unchecked Sendable {
    private weak var connection: PulseConnection?
    private var work: (@Sendable () -> Void)?
    /// The loop's time event while armed (only touched under the loop's lock).
    fileprivate var event: OpaquePointer?

    fileprivate init(connection: PulseConnection, work: @escaping @Sendable () -> Void) {
        self.connection = connection
        self.work = work
    }

    fileprivate func fire() {
        if let event { connection?.freeTimeEvent(event) }
        event = nil
        let work = self.work
        self.work = nil
        work?()
    }

    public func cancel() {
        guard let connection else { return }
        connection.perform { [self] in
            guard let event else { return }
            self.event = nil
            work = nil
            connection.freeTimeEvent(event)
            Unmanaged.passUnretained(self).release()  // the loop's reference, taken when armed
        }
    }
}

private final class WorkBox {
    let work: @Sendable () -> Void
    init(_ work: @escaping @Sendable () -> Void) { self.work = work }
}

private final class SuccessBox {
    let body: @Sendable (Bool) -> Void
    init(_ body: @escaping @Sendable (Bool) -> Void) { self.body = body }
}

private final class IndexBox {
    let body: @Sendable (UInt32?) -> Void
    init(_ body: @escaping @Sendable (UInt32?) -> Void) { self.body = body }
}

// MARK: - Introspection callbacks (C function pointers: no captures; the connection is the userdata)

extension PulseConnection {
    fileprivate static let serverInfoCallback: pa_server_info_cb_t = { context, info, userdata in
        let connection = PulseConnection.connection(userdata)
        guard connection.isCurrent(context) else { return }
        if let info = info?.pointee { connection.update(PulseDecoding.server(info)) }
        if connection.isSynchronizing { connection.answered(context, endOfList: 1, initial: true) }
    }

    fileprivate static let sinkCallback: pa_sink_info_cb_t = { context, info, endOfList, userdata in
        let connection = PulseConnection.connection(userdata)
        guard connection.isCurrent(context) else { return }
        if let info = info?.pointee { connection.upsert(PulseDecoding.sink(info)) }
        connection.answered(context, endOfList: endOfList, initial: connection.isSynchronizing)
    }

    fileprivate static let sourceCallback: pa_source_info_cb_t = { context, info, endOfList, userdata in
        let connection = PulseConnection.connection(userdata)
        guard connection.isCurrent(context) else { return }
        if let info = info?.pointee { connection.upsert(PulseDecoding.source(info)) }
        connection.answered(context, endOfList: endOfList, initial: connection.isSynchronizing)
    }

    fileprivate static let sinkInputCallback: pa_sink_input_info_cb_t = { context, info, endOfList, userdata in
        let connection = PulseConnection.connection(userdata)
        guard connection.isCurrent(context) else { return }
        if let info = info?.pointee { connection.upsert(PulseDecoding.sinkInput(info)) }
        connection.answered(context, endOfList: endOfList, initial: connection.isSynchronizing)
    }

    fileprivate static let sourceOutputCallback: pa_source_output_info_cb_t = { context, info, endOfList, userdata in
        let connection = PulseConnection.connection(userdata)
        guard connection.isCurrent(context) else { return }
        if let info = info?.pointee { connection.upsert(PulseDecoding.sourceOutput(info)) }
        connection.answered(context, endOfList: endOfList, initial: connection.isSynchronizing)
    }

    fileprivate static let clientCallback: pa_client_info_cb_t = { context, info, endOfList, userdata in
        let connection = PulseConnection.connection(userdata)
        guard connection.isCurrent(context) else { return }
        if let info = info?.pointee { connection.upsert(PulseDecoding.client(info)) }
        connection.answered(context, endOfList: endOfList, initial: connection.isSynchronizing)
    }

    fileprivate static let cardCallback: pa_card_info_cb_t = { context, info, endOfList, userdata in
        let connection = PulseConnection.connection(userdata)
        guard connection.isCurrent(context) else { return }
        if let info = info?.pointee { connection.upsert(PulseDecoding.card(info)) }
        connection.answered(context, endOfList: endOfList, initial: connection.isSynchronizing)
    }

    fileprivate static let moduleCallback: pa_module_info_cb_t = { context, info, endOfList, userdata in
        let connection = PulseConnection.connection(userdata)
        guard connection.isCurrent(context) else { return }
        if let info = info?.pointee { connection.upsert(PulseDecoding.module(info)) }
        connection.answered(context, endOfList: endOfList, initial: connection.isSynchronizing)
    }
}
