import Logging
import PipeWireGraph
import SessionPolicy

/// What the graph's clock actually runs at, sampled on demand: after an event that may change
/// its rate or quantum (a device or stream starts or stops running, a `clock.*` setting changes
/// — our own forced quantum and rate among them —, the default output changes), the profiler is
/// bound, the first fresh cycle of the driver that clocks the default output is taken, and the
/// profiler is unbound again. Bound for good, it would make the server build a profile every
/// cycle and wake us to send it; an idle daemon samples nothing and wakes for nothing.
///
/// Only a cycle that began after the latest reason counts (``DriverCycle/isFresh``): one from
/// before may predate the change, or a stream that stopped since. One sample at a time: a reason
/// that comes while one is under way moves that point and the deadline. When no driver runs, no
/// fresh cycle comes: after ``patience(for:)`` there is no running clock to report.
final class ClockProbe: Sendable {
    /// How long a sample may take before "nothing runs" is the answer: a profile comes at the
    /// end of a driver's next cycle (the longest PipeWire runs by default, 8192 frames at
    /// 44.1 kHz, is 186 ms); a server before 0.3.75 sends what it gathered once a second.
    static func patience(for server: PipeWireVersion?) -> Duration {
        guard let server, server < DriverCycle.firstVersionSendingEveryCycle else { return .milliseconds(500) }
        return .milliseconds(1500)
    }

    private let graph: PipeWireGraph
    private let loop: DaemonLoop
    private let logger: Logger
    /// Where a sample goes when it differs from the last one reported.
    private let report: @Sendable (RunningClock?) -> Void
    private struct State {
        /// Audio devices and streams that run now: one starting or stopping may change the clock.
        var runningNodes: Set<GlobalID> = []
        /// The sample under way: when it was first and last asked for, its deadline, and the newest
        /// fresh cycle of each driver seen since the last reason, in the order the drivers came.
        var requestedAt: Timestamp?
        var lastRequestedAt = Timestamp.zero
        var deadline: ScheduledWork?
        /// How long the sample under way may take, from its latest reason.
        var patience: Duration = .milliseconds(500)
        var seen: [DriverCycle] = []
        /// The last value reported; nil until the first report after attaching.
        var reported: RunningClock??
    }

    private let state: LoopBound<State>

    init(graph: PipeWireGraph, loop: DaemonLoop, logger: Logger, report: @escaping @Sendable (RunningClock?) -> Void) {
        self.graph = graph
        self.loop = loop
        self.logger = logger
        self.report = report
        state = LoopBound(State(), on: loop)
    }

    /// Every graph event, once the backend is attached (and the ones that attach and detach it).
    func handle(_ event: GraphEvent, in snapshot: GraphSnapshot) {
        switch event {
        case .connected, .disconnected:
            reset()
        case .initialSyncComplete:
            state.runningNodes = Set(snapshot.nodes.values.filter { Self.counts($0) && $0.state == .running }.map(\.id))
            if snapshot.profiler == nil {
                logger.warning("PipeWire has no profiler (libpipewire-module-profiler): sessions are told the policy's hardware values, not the graph's")
            }
            request(because: "attached", in: snapshot)
        case .added(.node(let node)), .changed(.node(let node)):
            guard Self.counts(node) else { return }
            let running = node.state == .running
            guard running != state.runningNodes.contains(node.id) else { return }
            if running { state.runningNodes.insert(node.id) } else { state.runningNodes.remove(node.id) }
            request(because: "\(node.name) \(running ? "runs" : "stopped running")", in: snapshot)
        case .removed(.node(let node)):
            guard state.runningNodes.remove(node.id) != nil else { return }
            request(because: "\(node.name) went away", in: snapshot)
        case .metadataChanged("settings", _, let key, _) where key == nil || key?.hasPrefix("clock.") == true:
            request(because: "settings \(key ?? "cleared")", in: snapshot)
        case .metadataChanged(GraphEndpoints.defaultMetadata, 0, let key, _)
        where key == nil || key == GraphEndpoints.sinkKeys.effective:
            request(because: "the default output changed", in: snapshot)
        case .clocksSampled(let cycles):
            received(cycles, in: snapshot)
        default:
            break
        }
    }

    /// Audio devices and application streams: what a graph's quantum and rate follow.
    private static func counts(_ node: Node) -> Bool {
        GraphEndpoints.endpointDirection(of: node) != nil || GraphEndpoints.streamDirection(of: node) != nil
    }

    /// Cheap per reason, since a burst brings hundreds (every stream of a call's interruption
    /// stops running): the reason's text is built only when traced, the profiler already bound
    /// is only told to want a fresh cycle, and the deadline timer armed for the first reason is
    /// not re-armed for each later one — it re-arms itself when it fires early (``deadlineReached()``).
    private func request(because reason: @autoclosure () -> String, in snapshot: GraphSnapshot) {
        logger.trace("clock: sampling (\(reason()))")
        state.lastRequestedAt = loop.now
        state.patience = Self.patience(for: snapshot.serverVersion)
        state.seen = []  // what came so far may predate this reason
        graph.sampleClocks()
        guard state.requestedAt == nil else { return }
        state.requestedAt = state.lastRequestedAt
        armDeadline(after: state.patience)
    }

    private func armDeadline(after wait: Duration) {
        state.deadline = loop.schedule(after: wait) { [weak self] in self?.deadlineReached() }
    }

    /// The deadline counts from the latest reason: fired before that, it waits the rest.
    private func deadlineReached() {
        state.deadline = nil
        guard state.requestedAt != nil else { return }
        let due = state.lastRequestedAt.advanced(by: state.patience)
        if loop.now < due { return armDeadline(after: due - loop.now) }
        patienceRanOut()
    }

    private func received(_ cycles: [DriverCycle], in snapshot: GraphSnapshot) {
        guard state.requestedAt != nil else { return }
        for cycle in cycles where cycle.isFresh && cycle.sampleRate > 0 && cycle.quantum > 0 {
            if let index = state.seen.firstIndex(where: { $0.driver == cycle.driver }) { state.seen[index] = cycle } else { state.seen.append(cycle) }
        }
        let output = snapshot.defaultAudioSink
        if let cycle = Self.cycle(clocking: output?.id, among: state.seen, waitingForOutput: output?.state == .running) {
            finish(with: cycle)
        }
    }

    /// No cycle of the default output's driver in time: another driver's will do, and none at
    /// all means no driver runs.
    private func patienceRanOut() {
        guard state.requestedAt != nil else { return }
        finish(with: Self.cycle(clocking: graph.snapshot.defaultAudioSink?.id, among: state.seen, waitingForOutput: false))
    }

    /// The cycle that tells what the default output runs at: that of the driver that clocks it
    /// (the output itself, or the driver that lists it as a follower). While the default output
    /// does not run (or once waiting is over), the first running driver's tells what plays.
    static func cycle(clocking output: GlobalID?, among cycles: [DriverCycle], waitingForOutput: Bool) -> DriverCycle? {
        if let output, let cycle = cycles.first(where: { $0.clocks(output) }) { return cycle }
        return waitingForOutput ? nil : cycles.first
    }

    private func finish(with cycle: DriverCycle?) {
        let started = state.requestedAt
        state.deadline?.cancel()
        state.deadline = nil
        state.requestedAt = nil
        state.seen = []
        graph.stopSamplingClocks()
        let clock = cycle.map { RunningClock(sampleRate: $0.sampleRate, quantum: $0.quantum) }
        let now = loop.now
        func elapsed(since time: Timestamp) -> String {
            let microseconds = (now.nanoseconds &- time.nanoseconds) / 1_000
            return "\(microseconds / 1_000).\(microseconds % 1_000 / 100) ms"
        }
        logger.debug(
            "clock: \(clock.map { "\($0) (driver \(cycle?.driverName ?? "?"))" } ?? "no driver runs"), sampled \(elapsed(since: state.lastRequestedAt)) after the last reason (\(started.map(elapsed(since:)) ?? "?") after the first)")
        guard state.reported != .some(clock) else { return }
        state.reported = .some(clock)
        report(clock)
    }

    /// A new connection, or none: nothing is under way, and the next sample is reported.
    private func reset() {
        state.deadline?.cancel()
        state.deadline = nil
        state.requestedAt = nil
        state.seen = []
        state.runningNodes = []
        state.reported = nil
    }
}
