import Dispatch
import Foundation

/// The one factor every bound of the tests' waits is multiplied by: `AUDIOSESSION_TEST_TIME_SCALE`
/// (default 1). A slow or loaded machine (a CI runner sharing its cores, a debugger attached)
/// sets it once, e.g. to 3, and every deadline grows together, instead of each test guessing a
/// bound of its own. ``waitUntil(timeout:poll:_:_:)`` applies it; a wait that does not go
/// through it asks ``scaled(_:)``.
public enum TestTime {
    /// The factor; an unset, unreadable or non-positive value is 1.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["AUDIOSESSION_TEST_TIME_SCALE"], let value = Double(text),
            value > 0, value.isFinite
        else { return 1 }
        return value
    }()

    /// `bound` on this machine: times ``scale``.
    public static func scaled(_ bound: Duration) -> Duration { scale == 1 ? bound : bound * scale }

    /// `bound` on this machine, for a semaphore's `wait(timeout:)`.
    public static func scaledInterval(_ bound: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = scaled(bound).components
        return .milliseconds(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
