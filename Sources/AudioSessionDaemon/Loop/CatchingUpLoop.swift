import SessionPolicy

/// The loop as the policy coordinator uses it: work that runs later (a timer, a call handed
/// over from another thread) first lets the coordinator carry out what it left for the loop's
/// next turn, so nothing it does sees decisions half carried out, whatever the loop runs first.
final class CatchingUpLoop: DaemonLoop, Sendable {
    private let base: DaemonLoop
    /// What the coordinator left for later (wired once, before any work is handed over).
    let catchUp = WiredOnce<@Sendable () -> Void>(fallback: {})

    init(_ base: DaemonLoop) {
        self.base = base
    }

    var now: Timestamp { base.now }

    var isCurrent: Bool { base.isCurrent }

    func perform(_ work: @escaping @Sendable () -> Void) {
        guard !base.isCurrent else { return base.perform(work) }
        base.perform(afterCatchingUp(work))
    }

    func performLater(_ work: @escaping @Sendable () -> Void) { base.performLater(afterCatchingUp(work)) }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        base.schedule(after: delay, afterCatchingUp(work))
    }

    private func afterCatchingUp(_ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        { [self] in
            catchUp.value()
            work()
        }
    }
}
