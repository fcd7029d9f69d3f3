@testable import SessionPolicy

/// Drives a `PolicyEngine` with a fake clock and remembers every decision, so tests read
/// like the scenario they describe.
struct EngineHarness {
    var engine: PolicyEngine
    var clock: UInt64 = 0
    var nextStream: UInt32 = 100
    var log: [PolicyDecision] = []

    init(_ configuration: PolicyConfiguration = .desktop) {
        engine = PolicyEngine(configuration: configuration)
    }

    @discardableResult
    mutating func send(_ event: PolicyEvent) -> [PolicyDecision] {
        clock += 1_000_000
        let decisions = engine.handle(event, at: Timestamp(nanoseconds: clock))
        log += decisions
        return decisions
    }

    /// Lets time pass without an event.
    mutating func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        clock += UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    /// An explicit session (our API) of a category.
    @discardableResult
    mutating func explicit(
        _ id: UInt64, _ category: Category, mode: Mode = .default, options: CategoryOptions = [],
        class priorityClass: PriorityClass = .media, app: String? = nil
    ) -> SessionID {
        let session = SessionID(id)
        send(.sessionCreated(session, SessionDescriptor(
            kind: .explicit, app: app ?? "app\(id)",
            classification: Classification(category: category, mode: mode, options: options, priorityClass: priorityClass))))
        return session
    }

    /// An implicit session (a client with streams, classified by rules).
    @discardableResult
    mutating func implicit(
        _ id: UInt64, _ category: Category, mode: Mode = .default, options: CategoryOptions = [],
        class priorityClass: PriorityClass = .media, app: String? = nil, capabilities: Set<InterruptionMethod>? = nil
    ) -> SessionID {
        let session = SessionID(id)
        send(.sessionCreated(session, SessionDescriptor(
            kind: .implicit, app: app ?? "app\(id)",
            classification: Classification(category: category, mode: mode, options: options, priorityClass: priorityClass),
            capabilities: capabilities)))
        return session
    }

    @discardableResult
    mutating func activate(_ session: SessionID) -> [PolicyDecision] {
        send(.setActive(session, true, options: []))
    }

    @discardableResult
    mutating func deactivate(_ session: SessionID, notifyOthers: Bool = false) -> [PolicyDecision] {
        send(.setActive(session, false, options: notifyOthers ? .notifyOthersOnDeactivation : []))
    }

    /// Starts a stream and returns its id.
    mutating func play(_ session: SessionID, _ direction: StreamDirection = .playback) -> StreamID {
        let stream = StreamID(direction, nextStream)
        nextStream += 1
        send(.streamStarted(session, stream))
        return stream
    }

    func activity(_ session: SessionID) -> SessionActivity? { engine.snapshot(of: session)?.activity }
    func gain(_ session: SessionID) -> Double? { engine.snapshot(of: session)?.gain }
    func isPlaying(_ session: SessionID) -> Bool { engine.playingSessions.contains(session) }
}

extension Array where Element == PolicyDecision {
    func began(_ session: SessionID) -> Bool {
        contains { if case .interruptionBegan(session, _, _) = $0 { true } else { false } }
    }
    func ended(_ session: SessionID) -> InterruptionOptions? {
        for decision in self { if case .interruptionEnded(session, let options, _) = decision { return options } }
        return nil
    }
    func failure(_ session: SessionID) -> AudioSessionError? {
        for decision in self { if case .failed(session, let error) = decision { return error } }
        return nil
    }
    func gains(_ session: SessionID) -> [Double] {
        compactMap { if case .setGain(session, let gain, _) = $0 { gain } else { nil } }
    }
    func routeReasons(_ session: SessionID) -> [RouteChangeReason] {
        compactMap { if case .routeChanged(session, let reason, _) = $0 { reason } else { nil } }
    }
    func hints(_ session: SessionID) -> [SilenceSecondaryAudioHintType] {
        compactMap { if case .secondaryAudioHint(session, let hint) = $0 { hint } else { nil } }
    }
    func links(_ session: SessionID) -> [RouteDescription] {
        compactMap { if case .link(session, let route) = $0 { route } else { nil } }
    }
    var hardware: [HardwareChoice] {
        compactMap { if case .setHardware(let choice) = $0 { choice } else { nil } }
    }
}
