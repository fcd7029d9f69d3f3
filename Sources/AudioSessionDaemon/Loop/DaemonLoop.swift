import SessionPolicy

/// The one thread the daemon's policy state lives on, and its clock.
///
/// Everything that reacts (the coordinator, enforcement, the D-Bus service, MPRIS, logind, the
/// rules watcher) reaches that state through this protocol, never through the audio server's
/// own types: PipeWire's loop thread implements it in the daemon (``PipeWireLoop``), a virtual
/// loop with a clock the test advances implements it in unit tests. Time is read only here.
protocol DaemonLoop: AnyObject, Sendable {
    /// Monotonic time on this loop's clock, from an arbitrary origin.
    var now: Timestamp { get }
    /// Whether the caller runs on the loop: what loop-confined state checks in debug builds.
    var isCurrent: Bool { get }
    /// Runs `work` on the loop, in order with the server's events: at once when called there.
    func perform(_ work: @escaping @Sendable () -> Void)
    /// Runs `work` on the loop after what it is doing now and what is already queued (never
    /// at once).
    func performLater(_ work: @escaping @Sendable () -> Void)
    /// Runs `work` on the loop after `delay`; cancel with the returned token.
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork
}

/// A pending timer; `cancel()` is safe after it fired.
protocol ScheduledWork: AnyObject {
    func cancel()
}

extension DaemonLoop {
    /// Stops a debug build when loop-confined state is touched from another thread (a release
    /// build checks nothing: the check is on every access).
    func assertConfined(_ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        assert(isCurrent, "\(what()) touched off the daemon's loop", file: file, line: line)
    }
}
