/// A session, named by the daemon (opaque to the engine).
public struct SessionID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (lhs: SessionID, rhs: SessionID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "session#\(rawValue)" }
}

/// A stream: which way it flows and the backend's number for it. The direction is part of
/// its identity: PipeWire numbers all nodes together, PulseAudio numbers sink inputs and
/// source outputs separately (sink input 5 and source output 5 are two streams).
public struct StreamID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var direction: StreamDirection
    /// The backend's number (PipeWire node id, PulseAudio sink input or source output index).
    public var rawValue: UInt32
    public init(_ direction: StreamDirection, _ rawValue: UInt32) {
        self.direction = direction
        self.rawValue = rawValue
    }
    public static func playback(_ rawValue: UInt32) -> StreamID { StreamID(.playback, rawValue) }
    public static func capture(_ rawValue: UInt32) -> StreamID { StreamID(.capture, rawValue) }
    public static func < (lhs: StreamID, rhs: StreamID) -> Bool {
        (lhs.rawValue, lhs.direction == .playback ? 0 : 1) < (rhs.rawValue, rhs.direction == .playback ? 0 : 1)
    }
    /// `12` for playback, `capture 12` (PipeWire's ids are unique anyway; logs stay short).
    public var description: String { direction == .playback ? "\(rawValue)" : "capture \(rawValue)" }
}

/// A device (one sink or source): which way it carries audio and the backend's number for it
/// (PipeWire node id, PulseAudio sink or source index).
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var direction: PortDirection
    public var rawValue: UInt32
    public init(_ direction: PortDirection, _ rawValue: UInt32) {
        self.direction = direction
        self.rawValue = rawValue
    }
    public static func output(_ rawValue: UInt32) -> DeviceID { DeviceID(.output, rawValue) }
    public static func input(_ rawValue: UInt32) -> DeviceID { DeviceID(.input, rawValue) }
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool {
        (lhs.rawValue, lhs.direction == .output ? 0 : 1) < (rhs.rawValue, rhs.direction == .output ? 0 : 1)
    }
    public var description: String { "\(direction.rawValue) \(rawValue)" }
}

/// A point in time from the caller's clock (monotonic nanoseconds). The engine never
/// reads a clock itself; it only records and compares these.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }
    public static let zero = Timestamp(nanoseconds: 0)
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public var description: String { "t=\(nanoseconds)ns" }
}

/// Whether an app asked for its session or the rules made one for its streams.
public enum SessionKind: String, Hashable, Sendable, CaseIterable, WireNamed {
    /// Created over our session API (D-Bus, `audiosessionctl run`): it activates itself.
    case explicit
    /// One per client with audio streams, classified by rules: a running stream activates it.
    case implicit
    public var wireName: String { rawValue }
}

/// What the daemon knows about a new session.
public struct SessionDescriptor: Hashable, Sendable {
    public var kind: SessionKind
    /// The app the session belongs to (record permission and "someone else" are per app):
    /// the id the system vouches for (``SessionOwnership/app(named:by:)``).
    public var app: String
    /// The name the app gives itself (`CreateSession`'s, a stream's `application.name`): for
    /// people to read, never to decide anything by. Empty: the same as ``app``.
    public var label: String
    public var classification: Classification
    /// How interruptions can reach it (`sessionAPI` for explicit sessions, `mpris` when
    /// the daemon found an MPRIS player for it; `unlink` and `mute` always work on streams).
    public var capabilities: Set<InterruptionMethod>

    public init(
        kind: SessionKind, app: String, label: String = "", classification: Classification = .unconfigured,
        capabilities: Set<InterruptionMethod>? = nil
    ) {
        self.kind = kind
        self.app = app
        self.label = label.isEmpty ? app : label
        self.classification = classification
        self.capabilities = capabilities ?? (kind == .explicit ? [.sessionAPI, .unlink, .mute] : [.unlink, .mute])
    }
}

extension Timestamp {
    /// This instant `duration` later (a negative duration goes back, never before zero).
    public func advanced(by duration: Duration) -> Timestamp {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return Timestamp(nanoseconds: nanoseconds >= 0
            ? self.nanoseconds &+ UInt64(nanoseconds)
            : self.nanoseconds - min(self.nanoseconds, UInt64(-nanoseconds)))
    }

    /// The time from `earlier` to this instant (negative when `earlier` is later).
    public static func - (later: Timestamp, earlier: Timestamp) -> Duration {
        later >= earlier
            ? .nanoseconds(Int64(later.nanoseconds - earlier.nanoseconds))
            : .zero - .nanoseconds(Int64(earlier.nanoseconds - later.nanoseconds))
    }
}
