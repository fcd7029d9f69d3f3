import CPipeWire
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PipeWireShim

/// Everything that lives on the loop thread: the context, the connection and its proxies,
/// the working copy of the mirror, and the reconnect timer.
///
/// Confined to the loop thread (or to the caller of `shutdown()` once the loop has stopped),
/// hence `@unchecked Sendable`: closures handed to `LoopThread` capture it.
final class GraphSession: @unchecked Sendable {
    let loopThread: LoopThread
    let configuration: PipeWireGraph.Configuration
    let logger: Logger
    private let deliver: (GraphEvent, GraphSnapshot) -> Void
    /// Told the current connection problem (nil once connected), for tools that give up early.
    private let reportProblem: (String?) -> Void

    private var context: OpaquePointer?
    private(set) var core: OpaquePointer?
    private var coreHook: UnsafeMutablePointer<spa_hook>?
    private(set) var registry: OpaquePointer?
    private var registryHook: UnsafeMutablePointer<spa_hook>?
    private var reconnectTimer: UnsafeMutablePointer<spa_source>?
    /// Armed while a round trip waits, for when the oldest may have waited too long
    /// (GraphSession+Deafness).
    var deafnessTimer: UnsafeMutablePointer<spa_source>?
    private var nextBackoff: Duration
    private var outageReported = false
    private var wasConnected = false
    private var isShutDown = false

    var bound: [GlobalID: BoundProxy] = [:]
    var ownedLinks: [PortPairing.Pair: OwnedLink] = [:]
    /// Link destroys not sent yet: they go out in growing batches, one per round-trip.
    var linkDestroys = PacedRequests<GlobalID>()
    /// The core paused so that what was requested goes out first, until the loop's next turn
    /// (``sendAhead()``).
    var pausedForSending: OpaquePointer?
    /// Owned links whose proxies are to be destroyed once the current callback returns.
    var retiredLinks: [OwnedLink] = []
    /// The mirror being built; published (copied) after each change.
    var mirror = GraphSnapshot()
    /// Round trips on the main connection.
    var roundTrips = RoundTrips()
    /// Counts requests whose replies belong to the current state (binds, enumerations):
    /// the initial sync repeats until a round-trip adds none.
    var pendingWork = 0
    /// The round trip that follows binds (``coverBinds()``).
    var bindCover = BindCover()
    /// Metadata objects to bind once more (``replayMetadataLater(_:)``), by id.
    var metadataReplays: [GlobalID: GraphTimer] = [:]

    /// Metadata objects we implement, exported on a second connection (pitfall 1).
    var exportCore: OpaquePointer?
    var exportCoreHook: UnsafeMutablePointer<spa_hook>?
    /// Round trips on the export connection.
    var exportRoundTrips = RoundTrips()
    /// Pings the server sent the export connection (one per bind of an object we export).
    var exportPings: UInt64 = 0
    var exportedMetadata: [String: ExportedMetadata] = [:]
    /// Level meters, by the node they listen to (Meters/).
    var meters: [GlobalID: LevelMeter] = [:]
    /// Meters asked for whose targets are not linked yet, with their thresholds.
    var pendingMeters: [GlobalID: Float] = [:]
    /// The server's profiler global, and our binding of it while clocks are sampled (Clock/).
    var profilerGlobal: (id: GlobalID, version: UInt32)?
    var profiler: ProfilerProxy?
    /// Unbound profilers whose proxies are to be destroyed once the current callback returns.
    var retiredProfilers: [ProfilerProxy] = []

    init(
        loopThread: LoopThread, configuration: PipeWireGraph.Configuration, logger: Logger,
        deliver: @escaping (GraphEvent, GraphSnapshot) -> Void, reportProblem: @escaping (String?) -> Void
    ) {
        self.loopThread = loopThread
        self.configuration = configuration
        self.logger = logger
        self.deliver = deliver
        self.reportProblem = reportProblem
        self.nextBackoff = configuration.reconnectBackoff.initial
    }

    var isConnected: Bool { core != nil }

    // MARK: - Lifecycle

    /// Creates the context and connects (loop thread).
    func begin() {
        guard !isShutDown, context == nil else { return }
        var properties = ["application.name": configuration.applicationName]
        properties["config.name"] = "client.conf"
        // Nothing of ours is real-time audio (the level meters only read): locked buffers would
        // buy nothing, and unlocking them when the process ends waits for every CPU's work
        // queue, which a busy machine starves: a killed daemon took over 15 s to be gone.
        properties["mem.allow-mlock"] = "false"
        context = pw_context_new(loopThread.loop, Self.makeProperties(properties), 0)
        guard let context else {
            logger.critical("pw_context_new failed: \(String(cString: strerror(errno)))")
            return
        }
        if !pws_context_load_profiler(context) {
            logger.warning("cannot load libpipewire-module-profiler: the graph's clock cannot be sampled")
        }
        reconnectTimer = pws_loop_add_timer(
            loopThread.loop,
            { data, _ in
                Unmanaged<GraphSession>.fromOpaque(data!).takeUnretainedValue().attemptConnection()
            }, Unmanaged.passUnretained(self).toOpaque())
        deafnessTimer = pws_loop_add_timer(
            loopThread.loop,
            { data, _ in
                Unmanaged<GraphSession>.fromOpaque(data!).takeUnretainedValue().checkForDeafness()
            }, Unmanaged.passUnretained(self).toOpaque())
        attemptConnection()
    }

    /// Tears everything down. Called with the loop stopped (or locked); idempotent.
    func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        tearDownConnection()
        if let reconnectTimer {
            pws_loop_destroy_source(loopThread.loop, reconnectTimer)
            self.reconnectTimer = nil
        }
        if let deafnessTimer {
            pws_loop_destroy_source(loopThread.loop, deafnessTimer)
            self.deafnessTimer = nil
        }
        if let context {
            pw_context_destroy(context)
            self.context = nil
        }
    }

    private func attemptConnection() {
        guard !isShutDown, core == nil, let context else { return }
        var properties: [String: String] = [:]
        if let remote = configuration.remote { properties["remote.name"] = remote }
        guard let newCore = pw_context_connect(context, Self.makeProperties(properties), 0) else {
            let socket = PipeWireRemote.socketPath(configuration.remote)
            let reason =
                FileManager.default.fileExists(atPath: socket)
                ? String(cString: strerror(errno)) : "no socket at \(socket)"
            let delay = nextBackoff
            if !outageReported {
                outageReported = true
                let problem =
                    "PipeWire is not running: cannot connect to remote '\(PipeWireRemote.name(configuration.remote))' in runtime dir '\(PipeWireRemote.runtimeDirectory(configuration.remote))' (\(reason))"
                reportProblem(problem)
                logger.error("\(problem); retrying with backoff")
            } else {
                logger.debug("PipeWire still unreachable (\(reason)); next attempt in \(delay)")
            }
            nextBackoff = configuration.reconnectBackoff.next(after: delay)
            armReconnect(after: delay)
            return
        }
        core = newCore
        let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
        hook.initialize(to: spa_hook())
        coreHook = hook
        _ = pws_core_add_listener(newCore, hook, EventTables.core, Unmanaged.passUnretained(self).toOpaque())
        nextBackoff = configuration.reconnectBackoff.initial
        let where_ = "remote '\(PipeWireRemote.name(configuration.remote))' in '\(PipeWireRemote.runtimeDirectory(configuration.remote))'"
        if wasConnected || outageReported {
            logger.notice("Connected to PipeWire again (\(where_)); rebuilding the graph")
        } else {
            logger.info("Connected to PipeWire (\(where_))")
        }
        outageReported = false
        wasConnected = true
        reportProblem(nil)
        emit(.connected)

        registry = pws_core_get_registry(newCore)
        if let registry {
            let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
            hook.initialize(to: spa_hook())
            registryHook = hook
            _ = pws_registry_add_listener(
                registry, hook, EventTables.registry, Unmanaged.passUnretained(self).toOpaque())
        }
        syncUntilQuiet(rounds: 0) { [weak self] completed in
            guard completed, let self else { return }
            self.emit(.initialSyncComplete)
        }
    }

    private func armReconnect(after delay: Duration) {
        guard let reconnectTimer else { return }
        _ = pws_loop_arm_timer(loopThread.loop, reconnectTimer, delay.timerNanoseconds)
    }

    /// The daemon went away: empty the mirror now, destroy the connection once the current
    /// callback has returned (the core is emitting), then retry.
    func connectionLost(reason: String) {
        guard core != nil, !isShutDown else { return }
        logger.warning(
            "Lost PipeWire (remote '\(PipeWireRemote.name(configuration.remote))' in '\(PipeWireRemote.runtimeDirectory(configuration.remote))'): \(reason); reconnecting"
        )
        detachListeners()
        mirror = GraphSnapshot()
        emit(.disconnected(reason: reason))
        loopThread.enqueue { [self] in
            tearDownConnection()
            nextBackoff = configuration.reconnectBackoff.next(after: configuration.reconnectBackoff.initial)
            armReconnect(after: configuration.reconnectBackoff.initial)
        }
    }

    /// Stops callbacks from the dying connection without destroying anything yet.
    private func detachListeners() {
        if let registryHook { detachHook(registryHook) }
        if let coreHook { detachHook(coreHook) }
    }

    private func tearDownConnection() {
        for handler in roundTrips.abandonAll() { handler(false) }
        stopWatchingForDeafness()
        for link in ownedLinks.values { link.destroy() }
        ownedLinks = [:]
        linkDestroys.reset()
        pausedForSending = nil
        destroyRetiredLinks()
        for proxy in bound.values { proxy.destroy() }
        bound = [:]
        profiler?.destroy()
        profiler = nil
        destroyRetiredProfilers()
        profilerGlobal = nil
        tearDownExports()
        if let registry {
            if let registryHook { detachHook(registryHook) }
            pw_proxy_destroy(registry)
        }
        registry = nil
        if let core {
            if let coreHook { detachHook(coreHook) }
            pw_core_disconnect(core)
        }
        core = nil
        registryHook?.deallocate()
        registryHook = nil
        coreHook?.deallocate()
        coreHook = nil
        pendingWork = 0
        bindCover = BindCover()
        for timer in metadataReplays.values { timer.cancel() }
        metadataReplays.removeAll()
        mirror = GraphSnapshot()
    }

    // MARK: - Core events

    /// The server's core info: its release decides which `Props` its nodes understand.
    func coreInfo(version: String) {
        guard let parsed = PipeWireVersion(version), parsed != mirror.serverVersion else { return }
        mirror.serverVersion = parsed
        logger.info("PipeWire server \(parsed)")
    }

    func coreDone(id: UInt32, seq: Int32) {
        guard let handler = roundTrips.answered(id: id, seq: seq) else { return }
        handler(true)
        if roundTrips.isEmpty { stopWatchingForDeafness() }
    }

    /// Whether an error on the core means the connection is gone. libpipewire reports what
    /// the socket said: `EPIPE` on a hang-up, but `ECONNRESET` when the read failed first (a
    /// server killed while messages were in flight, seen on a loaded machine); either way
    /// nothing will come any more, and the daemon must connect again.
    static func isConnectionLoss(_ result: Int32) -> Bool {
        [EPIPE, ECONNRESET, ECONNABORTED, ENOTCONN, ESHUTDOWN].contains(-result)
    }

    func coreError(id: UInt32, seq: Int32, result: Int32, message: String) {
        if id == PW_ID_CORE {
            if Self.isConnectionLoss(result) {
                connectionLost(reason: "connection closed by PipeWire (\(message))")
            } else {
                logger.log(
                    level: Self.level(of: result, otherwise: .error),
                    "PipeWire core error \(result) (\(String(cString: strerror(-result)))): \(message)")
            }
            return
        }
        logger.log(
            level: Self.level(of: result, otherwise: .warning), "PipeWire error on proxy \(id): \(message) (\(String(cString: strerror(-result))))")
    }

    /// "No such object" answers a request for something that went away meanwhile (a stream
    /// that ended while we linked it or set its volume): a normal race in a changing graph,
    /// not worth a warning. Streams created and destroyed ten times a second (the bench's
    /// churn) filled the log with them.
    static func level(of result: Int32, otherwise level: Logger.Level) -> Logger.Level {
        result == -ENOENT ? .debug : level
    }

    // MARK: - Round-trips

    /// Runs `handler(true)` after a `pw_core_sync` round-trip, or `handler(false)` when the
    /// connection is lost (or absent) first.
    func sync(_ handler: @escaping (Bool) -> Void) {
        let nothingWaited = roundTrips.isEmpty
        if !roundTrips.ask(core, handler) {
            handler(false)
        } else if nothingWaited {
            watchForDeafness()
        }
    }

    /// Round-trips until one adds no new pending requests (binds, enumerations, subscriptions):
    /// objects, their info and their params are then all in the mirror.
    func syncUntilQuiet(rounds: Int, _ handler: @escaping (Bool) -> Void) {
        let before = pendingWork
        sync { [weak self] completed in
            guard let self, completed else {
                handler(false)
                return
            }
            if self.pendingWork != before, rounds < 16 {
                self.syncUntilQuiet(rounds: rounds + 1, handler)
            } else {
                handler(true)
            }
        }
    }

    // MARK: - Publishing

    /// Publishes the mirror and one event, in order, on the loop thread.
    func emit(_ event: GraphEvent) {
        meterObserve(event)
        deliver(event, mirror)
    }

    // MARK: - Helpers

    static func makeProperties(_ values: [String: String]) -> UnsafeMutablePointer<pw_properties>? {
        guard let properties = pws_properties_new_empty() else { return nil }
        for (key, value) in values { pw_properties_set(properties, key, value) }
        return properties
    }
}

/// Which PipeWire a connection talks to, for messages that say where we looked.
enum PipeWireRemote {
    static func name(_ configured: String?) -> String {
        configured ?? ProcessInfo.processInfo.environment["PIPEWIRE_REMOTE"] ?? "pipewire-0"
    }

    static func socketPath(_ configured: String?) -> String {
        let remote = name(configured)
        return remote.hasPrefix("/") ? remote : "\(runtimeDirectory(configured))/\(remote)"
    }

    static func runtimeDirectory(_ configured: String?) -> String {
        let remote = name(configured)
        if remote.hasPrefix("/") {
            let directory = remote.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            return directory.isEmpty ? "/" : directory
        }
        let environment = ProcessInfo.processInfo.environment
        return environment["PIPEWIRE_RUNTIME_DIR"] ?? environment["XDG_RUNTIME_DIR"]
            ?? environment["USERPROFILE"] ?? "(no XDG_RUNTIME_DIR set)"
    }
}

/// Removes a listener hook; safe to call again (spa_hook_remove alone is not).
func detachHook(_ hook: UnsafeMutablePointer<spa_hook>) {
    spa_hook_remove(hook)
    hook.pointee = spa_hook()
}
