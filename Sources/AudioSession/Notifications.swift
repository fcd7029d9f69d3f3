import SessionPolicy
import Synchronization

/// `AVAudioSession.interruptionNotification`. An interruption *is* a deactivation: audio has
/// already stopped when `began` arrives, and `ended` may never come.
public struct InterruptionNotification: Sendable, Hashable {
    public var type: InterruptionType
    /// Why it began (`began` only).
    public var reason: InterruptionReason
    /// `shouldResume` (`ended` only): resume only when it is present.
    public var options: InterruptionOptions
}

/// `AVAudioSession.routeChangeNotification`: re-query rate, buffer, channels and latency.
public struct RouteChangeNotification: Sendable, Hashable {
    /// `nil` for a value this library does not know (decode by value, never by position).
    public var reason: RouteChangeReason?
    public var previousRoute: RouteDescription
}

/// A media key or headset button for the current media player (`MPRemoteCommandCenter`'s
/// commands; the raw values are the MPRIS methods the daemon forwards).
public enum RemoteCommand: String, Sendable, Hashable, CaseIterable {
    case play = "Play"
    case pause = "Pause"
    case togglePlayPause = "PlayPause"
    case stop = "Stop"
    case nextTrack = "Next"
    case previousTrack = "Previous"
}

/// Hands every value to all current listeners; each listener is an `AsyncStream`.
final class Broadcast<Value: Sendable>: Sendable {
    private let listeners = Mutex<[Int: AsyncStream<Value>.Continuation]>([:])
    private let nextKey = Mutex(0)

    func stream() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        let key = nextKey.withLock { key in
            defer { key += 1 }
            return key
        }
        listeners.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.listeners.withLock { $0.removeValue(forKey: key) } }
        return stream
    }

    func send(_ value: Value) {
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield(value) }
    }

    func finish() {
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
