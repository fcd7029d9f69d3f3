import SessionPolicy

/// The daemon's loop as the policy's side sees it: work another thread hands it (a D-Bus call,
/// an MPRIS player's signal, a rules reload) also tells ``QuietCodeRelease`` that the daemon
/// is not at rest, as the audio server's events do. Everything else goes to the loop as is.
final class ActivityNotingLoop: DaemonLoop {
    private let base: DaemonLoop
    private let rest: QuietCodeRelease

    init(_ base: DaemonLoop, rest: QuietCodeRelease) {
        self.base = base
        self.rest = rest
    }

    var now: Timestamp { base.now }

    var isCurrent: Bool { base.isCurrent }

    func perform(_ work: @escaping @Sendable () -> Void) {
        guard !base.isCurrent else { return base.perform(work) }
        let rest = self.rest
        base.perform {
            work()
            rest.noteActivity()
        }
    }

    func performLater(_ work: @escaping @Sendable () -> Void) { base.performLater(work) }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        base.schedule(after: delay, work)
    }
}
