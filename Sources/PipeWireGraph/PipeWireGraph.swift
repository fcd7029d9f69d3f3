#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Logging
import Synchronization

/// The PipeWire graph, mirrored and acted on. Mechanism only: it observes and carries out,
/// it decides nothing.
///
/// libpipewire runs on a dedicated loop thread. `snapshot` is readable from any thread (off
/// the loop it is fetched from the loop, so the mirror is never shared between events);
/// actions may be called from any thread (they are queued onto the loop) and from inside the
/// observer (they run right away, in call order).
///
/// What the events promise:
/// - `connected`, then one `added` per object, then `initialSyncComplete` once a round-trip
///   brings nothing new (objects, their info, node `Props`, device routes are all in).
/// - Clients, nodes, links and devices are announced at their first `info` (so a node's
///   `added` carries `media.role` and its state); their `Props` / routes follow as `changed`.
///   Ports are announced from the registry global. Metadata is announced when bound; its
///   keys arrive as `metadataChanged`.
/// - `changed` only when the value really changed; `removed` carries the last value.
/// - A lost daemon gives `disconnected` with an empty snapshot, then retries with backoff;
///   the next `connected` rebuilds everything from scratch (our links and provided metadata
///   died with the old connection; provided metadata is exported again).
// Unchecked: `session` is set once in `init`, before any other thread sees the graph, and used on
// the loop thread (or by `stop()` once that thread is gone); everything else another thread
// reaches is in a `Mutex` or an atomic.
public final class PipeWireGraph: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// nil: `PIPEWIRE_REMOTE`, else `pipewire-0` in the runtime dir (libpipewire's default).
        public var remote: String?
        /// `application.name` of our connection.
        public var applicationName: String
        public var reconnectBackoff: ReconnectBackoff
        /// How long a round trip may go unanswered before the connection counts as lost. A
        /// server answers in milliseconds; one that stops reading a client's socket for good
        /// (docs/upstream-bugs.md) would otherwise leave the daemon deaf, its holds and links
        /// never carried out, with the socket still open.
        public var unansweredRoundTripLimit: Duration

        public init(
            remote: String? = nil, applicationName: String, reconnectBackoff: ReconnectBackoff = .init(),
            unansweredRoundTripLimit: Duration = .seconds(10)
        ) {
            self.remote = remote
            self.applicationName = applicationName
            self.reconnectBackoff = reconnectBackoff
            self.unansweredRoundTripLimit = unansweredRoundTripLimit
        }
    }

    /// Delays between connection attempts while PipeWire is away: exponential, capped.
    public struct ReconnectBackoff: Sendable, Equatable {
        public var initial: Duration
        public var maximum: Duration
        public var multiplier: Double

        public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5), multiplier: Double = 2) {
            self.initial = initial
            self.maximum = maximum
            self.multiplier = multiplier
        }

        public func next(after delay: Duration) -> Duration {
            min(maximum, delay * multiplier)
        }
    }

    public typealias Observer = @Sendable (GraphEvent, GraphSnapshot) -> Void

    private let loopThread: LoopThread
    private var session: GraphSession!
    private let logger: Logger
    /// The snapshot last handed to another thread: what such a reader gets when the loop is
    /// not running. Not updated per event: a copy kept across events would make the mirror's
    /// next change copy the paths it shares.
    private let published = Mutex(GraphSnapshot())
    private let connected = Mutex(false)
    private let problem = Mutex<String?>(nil)
    /// The observer, in a class box: reading a closure straight out of a `Mutex` on every event
    /// made Swift wrap it in another reabstraction thunk each time, so each call got slower
    /// (93% of the daemon's CPU at 100 streams) until the chain overflowed the stack.
    private final class ObserverBox: Sendable {
        let call: Observer
        init(_ call: @escaping Observer) { self.call = call }
    }

    private let observer = Mutex<ObserverBox?>(nil)
    private let subscribers = Mutex<[UUID: AsyncStream<GraphEvent>.Continuation]>([:])
    private let lifecycle = Mutex<Lifecycle>(.idle)
    /// Serializes the session once the loop thread is gone (`stop()`, late actions).
    private let stoppedLock = Mutex(())

    private enum Lifecycle { case idle, running, stopped }

    public init(configuration: Configuration, logger: Logger) {
        self.logger = logger
        loopThread = LoopThread(name: "pipewire-graph")
        session = GraphSession(
            loopThread: loopThread, configuration: configuration, logger: logger,
            deliver: { [unowned self] event, snapshot in self.deliver(event, snapshot) },
            reportProblem: { [unowned self] problem in self.problem.withLock { $0 = problem } })
    }

    /// For tools: no log output at all (they report `connectionProblem` themselves).
    public convenience init(configuration: Configuration) {
        self.init(configuration: configuration, logger: Logger(label: "PipeWireGraph") { _ in SwiftLogNoOpLogHandler() })
    }

    deinit { stop() }

    /// Starts the loop thread and connects. If PipeWire is not there, logs one clear line (which
    /// remote, which runtime dir) and keeps retrying with backoff.
    public func start() {
        let shouldStart = lifecycle.withLock { state in
            guard case .idle = state else { return false }
            state = .running
            return true
        }
        guard shouldStart else { return }
        let session = self.session!
        loopThread.enqueue { session.begin() }
        loopThread.start()
    }

    /// Disconnects, joins the loop thread and ends every event stream. Safe to call twice.
    /// Called from the observer (on the loop thread), it finishes on another thread instead:
    /// a thread cannot join itself.
    public func stop() {
        if loopThread.isOnLoopThread {
            startDetachedThread { [self] in stop() }
            return
        }
        // Under the lock: foreign-thread actions either get queued before the loop stops
        // (and run, at the latest in runRemainingWork) or run after the teardown as no-ops.
        let stoppedNow = stoppedLock.withLock { _ -> Bool in
            let previous = lifecycle.withLock { state in
                defer { state = .stopped }
                return state
            }
            guard previous != .stopped else { return false }
            if previous == .running { loopThread.stop() }
            session.shutdown()
            loopThread.runRemainingWork()
            return true
        }
        guard stoppedNow else { return }
        connected.withLock { $0 = false }
        published.withLock { $0 = GraphSnapshot() }
        let continuations = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    /// The graph as mirrored now; thread-safe. On the loop thread (inside the observer or
    /// `perform`) it is the mirror itself; from another thread it is copied on the loop, after
    /// the events already being delivered.
    public var snapshot: GraphSnapshot {
        let session = self.session!
        if loopThread.isOnLoopThread { return session.mirror }
        let fetched = Mutex<GraphSnapshot?>(nil)
        let done = DispatchSemaphore(value: 0)
        let queued = stoppedLock.withLock { _ -> Bool in
            guard lifecycle.withLock({ $0 == .running }) else { return false }
            loopThread.enqueue { [self] in
                let mirror = session.mirror
                published.withLock { $0 = mirror }
                fetched.withLock { $0 = mirror }
                done.signal()
            }
            return true
        }
        // The loop answers within microseconds; the bound only keeps a reader from hanging on
        // a loop that is blocked (it then gets the last snapshot read).
        if queued, done.wait(timeout: .now() + .seconds(2)) == .success, let mirror = fetched.withLock({ $0 }) {
            return mirror
        }
        return published.withLock { $0 }
    }

    /// Why the last connection attempt failed ("PipeWire is not running: ... remote ... runtime
    /// dir ..."), nil once connected. Lets a one-shot tool say so and exit instead of retrying.
    public var connectionProblem: String? { problem.withLock { $0 } }

    /// True between `connected` and `disconnected`.
    public var isConnected: Bool { connected.withLock { $0 } }

    /// Every event from now on, in order. The stream ends at `stop()`.
    public func events() -> AsyncStream<GraphEvent> {
        let (stream, continuation) = AsyncStream<GraphEvent>.makeStream()
        let key = UUID()
        let alreadyStopped = lifecycle.withLock { $0 == .stopped }
        if alreadyStopped {
            continuation.finish()
            return stream
        }
        subscribers.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: key) }
        }
        return stream
    }

    /// Called on the loop thread, in order, right after each change: react here with no thread hop.
    public func setObserver(_ observer: @escaping Observer) {
        let box = ObserverBox(observer)
        self.observer.withLock { $0 = box }
    }

    // MARK: - Actions

    /// Links a stream node to a device node (or any output node to any input node) port by port,
    /// by channel position (MONO → every channel, like WirePlumber). Pairs already linked are
    /// skipped, so calling it again when ports appear is cheap. The links belong to this
    /// connection and disappear with it.
    public func link(output: GlobalID, input: GlobalID) {
        run { $0.link(output: output, input: input) }
    }

    /// Destroys a link (any link, via `pw_registry_destroy`).
    public func unlink(_ link: GlobalID) {
        run { $0.unlink(link) }
    }

    /// Destroys every link from node `output` to node `input`.
    public func unlinkAll(between output: GlobalID, and input: GlobalID) {
        run { $0.unlinkAll(between: output, and: input) }
    }

    /// Sets the node's `Props`; nil leaves a property untouched.
    public func setProps(node: GlobalID, volume: Float? = nil, mute: Bool? = nil, channelVolumes: [Float]? = nil) {
        run { $0.setProps(node: node, volume: volume, mute: mute, channelVolumes: channelVolumes) }
    }

    /// Sets a node's `softVolumes` and `softMute` in one write (``NodeProps``).
    public func setSoftProps(node: GlobalID, volumes: [Float], mute: Bool) {
        run { $0.setSoftProps(node: node, volumes: volumes, mute: mute) }
    }

    /// Makes a device's route (its `EnumRoute` index) the active one of card profile device
    /// `profileDevice`, as a mixer's port switch does (not saved by the session manager).
    public func setRoute(device: GlobalID, index: Int, profileDevice: Int) {
        run { $0.setRoute(device: device, index: index, profileDevice: profileDevice) }
    }

    /// Makes a device's profile (its `EnumProfile` index) the active one, as a mixer's profile
    /// switch does, but not saved as its user's choice.
    public func setProfile(device: GlobalID, index: Int) {
        run { $0.setProfile(device: device, index: index) }
    }

    /// Sets (or with `value == nil` removes) one key of the metadata object named `name`.
    public func setMetadata(_ name: String, subject: GlobalID, key: String, type: String?, value: String?) {
        run { $0.setMetadata(name, subject: subject, key: key, type: type, value: value) }
    }

    /// Implements a metadata object named `name` in this process (e.g. "default" when no other
    /// session manager provides one), exported on a second connection, until
    /// ``withdrawMetadata(named:)`` or a disconnect (provide it again after a reconnect).
    public func provideMetadata(named name: String) {
        run { $0.provideMetadata(named: name) }
    }

    /// Stops implementing the metadata object `name` (another session manager provides it now).
    /// The subject-0 entries of ours named in `handingOver` go into the other client's object of
    /// the same name first, where it has none of them.
    public func withdrawMetadata(named name: String, handingOver keys: Set<String> = []) {
        run { $0.withdrawMetadata(named: name, handingOver: keys) }
    }

    /// Takes the exported metadata `name` out of the graph at once, without the round trips
    /// ``withdrawMetadata(named:handingOver:)`` waits for: PipeWire's busy-mark bug
    /// (docs/upstream-bugs.md), for the tests that reproduce it.
    func withdrawMetadataAtOnce(named name: String) {
        run { $0.exportedMetadata.removeValue(forKey: name)?.destroy() }
    }

    /// Listens to a stream node's output and reports when it becomes audible or silent
    /// (``GraphEvent/levelChanged(node:audible:)``): its peak against `threshold` (linear). The
    /// meter is a capture stream of ours, linked by us; it goes with its target.
    public func startMeter(node: GlobalID, threshold: Float) {
        run { $0.startMeter(node: node, threshold: threshold) }
    }

    public func stopMeter(node: GlobalID) {
        run { $0.stopMeter(node: node) }
    }

    /// Samples the running drivers' clocks: binds the server's profiler and reports each profile
    /// it sends (``GraphEvent/clocksSampled(_:)``) until ``stopSamplingClocks()``. While bound,
    /// the server profiles every cycle and sends it to us, so sample briefly. Called again while
    /// sampling, only cycles that begin from then on count as fresh
    /// (``DriverCycle/isFresh``). Without a profiler (``GraphSnapshot/profiler``)
    /// nothing is reported.
    public func sampleClocks() {
        run { $0.sampleClocks() }
    }

    public func stopSamplingClocks() {
        run { $0.stopSamplingClocks() }
    }

    public func send(_ command: NodeCommand, to node: GlobalID) {
        run { $0.send(command, to: node) }
    }

    /// Gives an adapter node or stream DSP ports (`PortConfig`, mode dsp) in its preferred
    /// channel layout; needed before linking when no other session manager did it. With
    /// `unlessItHasDSPPorts`, a node that has them by the time its formats are known (someone
    /// configured it meanwhile, or its own ports came late) is left alone.
    public func configurePorts(node: GlobalID, unlessItHasDSPPorts: Bool = false) {
        run { $0.configurePorts(node: node, unlessItHasDSPPorts: unlessItHasDSPPorts) }
    }

    /// Resumes after a `pw_core_sync` round-trip (everything sent before it has been processed
    /// and its events delivered), or at once when not connected or on disconnect.
    public func roundTrip() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            run { session in session.sync { _ in continuation.resume() } }
        }
    }

    /// Whether the caller runs on the loop thread (where the observer and timers run).
    public var isOnLoopThread: Bool { loopThread.isOnLoopThread }

    /// Runs `work` on the loop thread, in order with the observer and the actions: how other
    /// threads (timers, D-Bus replies) hand results to code confined to the loop. Runs at once
    /// when called on the loop thread; dropped after `stop()`.
    public func perform(_ work: @escaping @Sendable () -> Void) {
        if loopThread.isOnLoopThread {
            work()
            return
        }
        stoppedLock.withLock { _ in
            guard lifecycle.withLock({ $0 != .stopped }) else { return }
            loopThread.enqueue(work)
        }
    }

    /// Runs `work` on the loop thread after `delay`, unless the returned timer is cancelled
    /// first: a timer source of PipeWire's loop, so waiting costs no thread and no wake-up.
    /// Never fires after `stop()`.
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> GraphTimer {
        let timer = GraphTimer(loopThread: loopThread, work: work)
        let nanoseconds = delay.timerNanoseconds
        perform { timer.arm(nanoseconds: nanoseconds) }
        return timer
    }

    /// Runs `work` on the loop thread after what the loop is doing now and what is already
    /// queued (never at once, even when called on the loop thread). Dropped after `stop()`.
    public func performLater(_ work: @escaping @Sendable () -> Void) {
        if loopThread.isOnLoopThread {
            loopThread.enqueue(work)  // the loop is running: no lock (stop() joins this thread under it)
            return
        }
        stoppedLock.withLock { _ in
            guard lifecycle.withLock({ $0 != .stopped }) else { return }
            loopThread.enqueue(work)
        }
    }

    // MARK: - Plumbing

    /// Runs an action on the loop thread: at once when already there, else queued. Once stopped,
    /// it runs on the caller's thread against the torn-down session (a no-op that still
    /// releases waiters such as `roundTrip`).
    private func run(_ action: @escaping @Sendable (GraphSession) -> Void) {
        let session = self.session!
        if loopThread.isOnLoopThread {
            action(session)
            return
        }
        stoppedLock.withLock { _ in
            if lifecycle.withLock({ $0 == .stopped }) {
                action(session)
            } else {
                loopThread.enqueue { action(session) }
            }
        }
    }

    /// On the loop thread: tell the observer and the streams.
    private func deliver(_ event: GraphEvent, _ snapshot: GraphSnapshot) {
        switch event {
        case .connected: connected.withLock { $0 = true }
        case .disconnected: connected.withLock { $0 = false }
        default: break
        }
        if let box = observer.withLock({ $0 }) { box.call(event, snapshot) }
        let continuations = subscribers.withLock { Array($0.values) }
        for continuation in continuations { continuation.yield(event) }
    }
}

extension PipeWireGraph {
    /// "remote 'pipewire-0' in '/run/user/1000'": where a connection with `remote` goes.
    public static func describeRemote(_ remote: String?) -> String {
        "remote '\(PipeWireRemote.name(remote))' in '\(PipeWireRemote.runtimeDirectory(remote))'"
    }
}
