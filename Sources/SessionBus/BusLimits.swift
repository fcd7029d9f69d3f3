// BusLimits: the per-peer bounds that keep a flooding client from stalling or exhausting the daemon.

/// Bounds that keep a misbehaving peer from exhausting the daemon.
public struct BusLimits: Sendable, Hashable {
    /// Calls one peer may have received and not yet had answered; more are refused at once with
    /// `org.freedesktop.DBus.Error.LimitsExceeded`.
    public var maxCallsInFlightPerPeer: Int
    public init(maxCallsInFlightPerPeer: Int = 256) {
        self.maxCallsInFlightPerPeer = maxCallsInFlightPerPeer
    }
}
