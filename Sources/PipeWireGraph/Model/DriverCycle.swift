/// One cycle of a driver as PipeWire's profiler reports it: the rate and quantum its clock ran
/// at, and the nodes it drove. The only place a client can read what the graph actually runs
/// at (the `settings` metadata holds what it is configured and forced to, not what a driver
/// chose from its nodes' latencies).
public struct DriverCycle: Sendable, Equatable {
    /// The driver node's id and name.
    public var driver: GlobalID
    public var driverName: String
    /// Hz: the clock's rate (PipeWire sends it as the fraction 1/rate).
    public var sampleRate: Int
    /// Frames per cycle: the clock's duration.
    public var quantum: Int
    /// The nodes the driver drove in this cycle (its followers).
    public var followers: [GlobalID]
    /// Whether the cycle began after the latest ``PipeWireGraph/sampleClocks()``, and so
    /// surely shows what the server was set to then: since 0.3.70 a new quantum or rate waits
    /// for the next cycle to begin, and a server of any release may send cycles it profiled
    /// before (0.3.65 gathers them for up to a second), from before a stream stopped. Read from
    /// the cycle's start on the driver's clock, which is our monotonic clock for ALSA, null sinks
    /// and the dummy driver; a driver on another clock counts as fresh.
    public var isFresh: Bool

    public init(
        driver: GlobalID, driverName: String, sampleRate: Int, quantum: Int, followers: [GlobalID],
        isFresh: Bool
    ) {
        self.driver = driver
        self.driverName = driverName
        self.sampleRate = sampleRate
        self.quantum = quantum
        self.followers = followers
        self.isFresh = isFresh
    }

    /// From this release the profiler sends each cycle as it ends; before, what it gathered once
    /// a second (sooner once 16 KiB piled up).
    public static let firstVersionSendingEveryCycle = PipeWireVersion(0, 3, 75)

    /// Whether `node` ran on this driver's clock: it is the driver or one of its followers.
    public func clocks(_ node: GlobalID) -> Bool { driver == node || followers.contains(node) }
}
