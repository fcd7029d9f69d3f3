import SessionPolicy

/// A warmed-up engine with `sessionCount` sessions and a cyclic list of events that leaves
/// it where it started, so any number of iterations measures the same steady state.
public final class Workload {
    public enum Kind: String, CaseIterable, Sendable {
        /// Media players start and stop streams; a tenth of the sessions play.
        case streamChurn
        /// Every session plays (desktop: media mixes); one at a time stops and restarts.
        case allPlayingChurn
        /// A call comes and goes: every playing media session is interrupted, then resumed.
        case callCycle
        /// A notification plays and ends: every playing media session is ducked, then restored.
        case notificationDuck
        /// Explicit sessions activate and deactivate (strict: non-mixable interrupts its class).
        case strictActivations
    }

    public let kind: Kind
    public let sessionCount: Int
    public private(set) var engine: PolicyEngine
    public let events: [PolicyEvent]
    private var clock: UInt64 = 1
    private var cursor = 0

    public init(_ kind: Kind, sessions sessionCount: Int) {
        self.kind = kind
        self.sessionCount = sessionCount
        var engine = PolicyEngine(configuration: kind == .strictActivations ? .strict : .desktop)
        var time: UInt64 = 1
        func send(_ event: PolicyEvent) {
            time += 1
            _ = engine.handle(event, at: Timestamp(nanoseconds: time))
        }
        send(.devicesEnumerated([
            Port(uid: "speaker", nodeID: 1, type: .builtInSpeaker, direction: .output),
            Port(uid: "headphones", nodeID: 2, type: .headphones, direction: .output),
            Port(uid: "mic", nodeID: 3, type: .builtInMic, direction: .input),
        ], defaultOutput: "headphones", defaultInput: "mic"))

        // A deterministic mix of sessions: mostly media, some games, spoken audio, recorders.
        let mix: [Classification] = [
            Classification(category: .playback, priorityClass: .media),
            Classification(category: .playback, priorityClass: .media),
            Classification(category: .ambient, priorityClass: .media),
            Classification(category: .playback, mode: .spokenAudio, priorityClass: .media),
            Classification(category: .soloAmbient, priorityClass: .media),
            Classification(category: .playback, options: .mixWithOthers, priorityClass: .media),
            Classification(category: .record, priorityClass: .media),
        ]
        let explicit = kind == .strictActivations
        for index in 0..<sessionCount {
            send(.sessionCreated(SessionID(UInt64(index)), SessionDescriptor(
                kind: explicit ? .explicit : .implicit, app: "app\(index)",
                classification: mix[index % mix.count])))
        }
        let playing = kind == .allPlayingChurn ? sessionCount : max(1, sessionCount / 10)
        for index in 0..<playing {
            let id = SessionID(UInt64(index))
            if explicit {
                send(.setActive(id, true, options: []))
            } else {
                send(.streamStarted(id, StreamID(.playback, UInt32(index))))
            }
        }

        var events: [PolicyEvent] = []
        var rng = SplitMix(seed: UInt64(sessionCount))
        switch kind {
        case .streamChurn:
            // A session outside the playing tenth starts and stops; one of the playing ones
            // pauses and resumes.
            for _ in 0..<512 {
                let idle = playing + Int(rng.next() % UInt64(max(1, sessionCount - playing)))
                let busy = Int(rng.next() % UInt64(playing))
                let idleStream = StreamID(.playback, UInt32(100_000 + idle))
                events += [
                    .streamStarted(SessionID(UInt64(idle % sessionCount)), idleStream),
                    .streamPausedByUser(StreamID(.playback, UInt32(busy))),
                    .streamStopped(idleStream),
                    .streamStarted(SessionID(UInt64(busy)), StreamID(.playback, UInt32(busy))),
                ]
            }
        case .allPlayingChurn:
            for _ in 0..<512 {
                let busy = Int(rng.next() % UInt64(sessionCount))
                events += [
                    .streamPausedByUser(StreamID(.playback, UInt32(busy))),
                    .streamStarted(SessionID(UInt64(busy)), StreamID(.playback, UInt32(busy))),
                ]
            }
        case .callCycle:
            let call = SessionID(UInt64(sessionCount))
            send(.sessionCreated(call, SessionDescriptor(
                kind: .implicit, app: "voip",
                classification: Classification(category: .playAndRecord, mode: .voiceChat, priorityClass: .communication))))
            events = [.streamStarted(call, StreamID(.playback, 900_000)), .streamStopped(StreamID(.playback, 900_000))]
        case .notificationDuck:
            let ding = SessionID(UInt64(sessionCount))
            send(.sessionCreated(ding, SessionDescriptor(
                kind: .implicit, app: "notifier",
                classification: Classification(category: .playback, options: .duckOthers, priorityClass: .notification))))
            events = [.streamStarted(ding, StreamID(.playback, 900_000)), .streamStopped(StreamID(.playback, 900_000))]
        case .strictActivations:
            for _ in 0..<512 {
                let id = SessionID(rng.next() % UInt64(sessionCount))
                events += [
                    .setActive(id, true, options: []),
                    .setActive(id, false, options: .notifyOthersOnDeactivation),
                ]
            }
        }
        self.engine = engine
        self.events = events
        self.clock = time
    }

    /// Handles the next event of the cycle; returns how many decisions it produced.
    @inline(never)
    public func step() -> Int {
        clock += 1
        let decisions = engine.handle(events[cursor], at: Timestamp(nanoseconds: clock))
        cursor += 1
        if cursor == events.count { cursor = 0 }
        return decisions.count
    }
}

/// Small deterministic generator, so every run replays the same workload.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
