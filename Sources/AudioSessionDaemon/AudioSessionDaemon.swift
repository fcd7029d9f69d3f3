import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PolicyRules
import PulseAudioServer
import Synchronization

/// The daemon: attaches to the audio server (PipeWire, or a pure PulseAudio) and wires its
/// backend to the policy.
///
/// Reactions run on the server connection's loop thread, inside its observer, so reacting to
/// a new stream costs no thread hop: it is bounded by server round-trips, not by our code.
public final class AudioSessionDaemon: Sendable {
    public let options: DaemonOptions
    private let logger: Logger
    /// The server, its loop (where the policy's state lives and reactions run) and its backend.
    private let attachment: ServerAttachment
    /// The loop as the policy's side sees it (``CatchingUpLoop`` over ``ActivityNotingLoop``):
    /// a rules reload handed to it is activity, as a D-Bus call is, and finds the decisions the
    /// coordinator left for later carried out.
    private var loop: DaemonLoop { coordinator.loop }
    private let coordinator: PolicyCoordinator
    /// Unmaps the daemon's code while it rests; told of the server's events and other work.
    private let rest: QuietCodeRelease
    private let rules: LiveRules
    private let rulesDirectories: [String]
    /// Watches the rules directories from `start()` to `stop()`; nil when inotify is unavailable.
    private let watcher = Mutex<RulesWatcher?>(nil)
    // --- D-Bus session API: served beside the server connection, stopped first ----
    private let sessionAPI = SessionAPIHost()
    /// Tells the service manager when the daemon is attached and serving (`sd_notify`).
    private let readiness: Readiness

    /// Which server the daemon attached to.
    public var server: AudioServerKind { attachment.server }

    /// Loads the rules (a daemon never runs without a valid set) and prepares the connection.
    public init(options: DaemonOptions, logger: Logger, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(DaemonStartFailure)
    {
        self.options = options
        self.logger = logger
        let locations = RuleLocations.standard(extra: options.extraRulesDirectories)
        do {
            rules = try LiveRules(loader: RuleSetLoader(locations: locations))
        } catch {
            throw .invalidRules(error)
        }
        rulesDirectories = locations.directories
        logger.info("policy rules: \(rules.ruleSet.files.count) files from \(locations.directories.joined(separator: ", "))")
        let (server, reason) = ServerDetection.choose(options.backend, options: options, environment: environment)
        logger.info("audio server: \(server.displayName) (\(reason))")
        switch server {
        case .pipewire: attachment = PipeWireAttachment(options: options, logger: logger)
        case .pulseaudio:
            if let problem = PulseLibrary.load() { throw .serverLibraryMissing("--backend pulseaudio needs libpulse: \(problem)") }
            attachment = PulseAudioAttachment(options: options, logger: logger)
        }
        rest = QuietCodeRelease(loop: attachment.loop, logger: logger)
        readiness = Readiness(
            waitingFor: options.servesBus ? [.attached, .sessionAPI, .mediaPlayers] : [.attached],
            server: server.displayName)
        coordinator = PolicyCoordinator(
            ruleSet: rules.ruleSet, backend: attachment.backend, loop: ActivityNotingLoop(attachment.loop, rest: rest),
            stateDirectory: options.stateDirectory,
            linkingMode: options.linking, logger: logger)
    }

    /// Connects and reacts to the server until `stop()`; returns at once.
    public func start() {
        let coordinator = self.coordinator
        let logger = self.logger
        let rest = self.rest
        let readiness = self.readiness
        readiness.starting()
        if options.servesBus {
            let sessionAPI = self.sessionAPI  // D-Bus session API: refreshed after each event
            attachment.start {
                coordinator.handle($0)
                sessionAPI.graphEventHandled()
                rest.saw($0)
                readiness.saw($0)
            }
        } else {
            attachment.start { coordinator.handle($0); rest.saw($0); readiness.saw($0) }
        }
        // --- MPRIS players (session bus) and logind (system bus): MPRIS/, Login/ ---
        if options.servesBus {
            DesktopIntegration.start(
                coordinator: coordinator, stateDirectory: options.stateDirectory, logger: logger,
                playersListed: { readiness.done(.mediaPlayers) })
        } else {
            logger.info("--no-bus: no MPRIS pause (interruptions hold streams), no logind lock or sleep")
        }
        // --- end MPRIS and logind ---
        // --- D-Bus session API ---
        if options.servesBus {
            let sessionAPI = self.sessionAPI
            sessionAPI.start(
                coordinator: coordinator, rules: rules, audioServer: attachment.server.displayName, stateDirectory: options.stateDirectory,
                logger: logger, started: { readiness.done(.sessionAPI) })
        }
        // --- end D-Bus session API ---
        // The watcher's own thread reloads (file reads stay off PipeWire's loop); no task in between.
        do {
            let watcher = try RulesWatcher(directories: rulesDirectories) { [weak self] in
                self?.reloadRules(because: "a rules file changed")
            }
            self.watcher.withLock { $0 = watcher }
        } catch {
            logger.warning("not watching rules directories (\(error)); reload with SIGHUP")
        }
    }

    /// Re-reads the rules; a valid set is swapped in and every stream re-classified, an invalid
    /// one is reported and changes nothing.
    public func reloadRules(because reason: String) {
        let read = rules.reload(because: reason)
        switch read.reading.outcome {
        case .unchanged, .loaded:
            logger.debug("rules unchanged (\(reason))")
        case .reloaded:
            logger.info("rules reloaded (\(reason)): \(read.ruleSet.files.count) files")
        case .failed:
            logger.error("rules reload (\(reason)) failed; keeping the previous rules:\n\(read.reading.error.map { "\($0)" } ?? "")")
        }
        let coordinator = self.coordinator
        loop.perform { coordinator.rulesRead(read.ruleSet) }
    }

    /// Undoes everything the daemon changed (media players it paused, then the server), then
    /// detaches.
    public func stop() {
        readiness.stopping()
        sessionAPI.stop()  // D-Bus session API: no calls reach a stopping coordinator
        watcher.withLock { $0 }?.stop()
        let coordinator = self.coordinator
        let attachment = self.attachment
        // Players we paused over MPRIS play again. Bounded: a player that does not answer in
        // time stays journalled, and the next start tries again.
        let played = DispatchSemaphore(value: 0)
        loop.perform { coordinator.resumePlayersBeforeExit { played.signal() } }
        let timing = coordinator.timing
        if played.wait(timeout: .now() + Self.dispatchInterval(timing.exitPlayersWait)) == .timedOut {
            logger.warning("MPRIS players did not answer Play in time; the next start tries again")
        }
        let done = DispatchSemaphore(value: 0)
        loop.perform {
            coordinator.enforcement.undoAll()
            attachment.undoBackendState {
                attachment.flush { done.signal() }  // our last writes reached the server
            }
        }
        if done.wait(timeout: .now() + Self.dispatchInterval(timing.exitServerWait)) == .timedOut {
            logger.warning("\(attachment.server.displayName) did not confirm the final restore in time")
        }
        attachment.stop()
        LogOutput.standardError.release()  // what the stopped loop's last turn logged
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .milliseconds(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }

    /// Runs until SIGINT or SIGTERM (reloading rules on SIGHUP), then stops cleanly. Owns the
    /// process: call it from the main thread before starting any other thread. It blocks the
    /// termination signals (every thread inherits that) and runs Swift tasks on one quiet
    /// thread instead of libdispatch's pool, so an idle daemon never wakes up.
    public func runUntilTerminated() {
        TerminationSignal.block()
        LargeAllocations.returnToTheSystemWhenFreed()
        TaskThread.installAsGlobalExecutor()
        start()
        let signal = TerminationSignal.wait(onHangUp: { [weak self] in self?.reloadRules(because: "SIGHUP") })
        logger.info("received \(signal), shutting down")
        stop()
    }
}
