#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PolicyRules
import Synchronization

/// Owns the D-Bus session API for the daemon: starts it beside PipeWire, stops it first on the
/// way down. The service starts asynchronously (taking the bus name is a round trip), so the
/// daemon never waits on the bus to attach to PipeWire.
final class SessionAPIHost: Sendable {
    private let service = Mutex<SessionService?>(nil)
    private let stopped = Mutex(false)
    private let startup = Mutex<Task<Void, Never>?>(nil)

    init() {}

    /// Starts serving unless `--no-bus`; with no session bus it logs one line and does nothing.
    /// `started` runs once the name is taken, or once that failed.
    func start(
        coordinator: PolicyCoordinator, rules: LiveRules, audioServer: String, stateDirectory: URL, logger: Logger,
        started done: @escaping @Sendable () -> Void = {}
    ) {
        let task = Task.detached { [self] in
            defer { done() }
            guard let started = await SessionService.start(
                coordinator: coordinator, rules: rules, audioServer: audioServer, stateDirectory: stateDirectory, logger: logger)
            else { return }
            let keep = stopped.withLock { stopped in
                if !stopped { service.withLock { $0 = started } }
                return !stopped
            }
            if !keep { started.stop() }
        }
        startup.withLock { $0 = task }
    }

    /// Called after the coordinator handled a backend event: devices may have come or gone
    /// without any session decision, and the manager's route properties must follow. The
    /// refresh runs after the loop has sent the reaction to PipeWire, never before.
    func graphEventHandled() {
        service.withLock { $0 }?.graphEventHandled()
    }

    func stop() {
        stopped.withLock { $0 = true }
        // Stopped outside the lock: stopping hands work to the daemon's loop, whose thread may
        // be waiting for this lock in `graphEventHandled` (a lock cycle on PulseAudio's loop,
        // which takes the main loop's own lock to queue work).
        let service = self.service.withLock { service in
            defer { service = nil }
            return service
        }
        service?.stop()
    }
}
