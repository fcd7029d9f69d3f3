#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock time, for what a journal must still mean to the next process (a monotonic
/// clock's readings do not survive the daemon).
enum WallClock {
    static func secondsSince1970() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
