#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import SessionBus

/// The desktop around the daemon: media players on the session bus (MPRIS) and the login
/// session on the system bus (logind). Either bus may be missing (a headless box, a test
/// without one): that is logged once and the daemon goes on without it.
enum DesktopIntegration {
    /// Connects in the background; events reach the coordinator on its loop.
    /// `stateDirectory` holds the journal of MPRIS pauses we owe a Play.
    /// `playersListed` runs once the players on the bus are known to the coordinator, or once
    /// the bus turned out to be out of reach.
    static func start(
        coordinator: PolicyCoordinator, stateDirectory: URL, logger: Logger,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        playersListed: @escaping @Sendable () -> Void = {}
    ) {
        let loop = coordinator.loop
        let perform: @Sendable (@escaping @Sendable () -> Void) -> Void = { loop.perform($0) }
        Task.detached {
            await attachPlayers(coordinator: coordinator, perform: perform, stateDirectory: stateDirectory, logger: logger)
            // Behind the players' news on the loop: ready means the coordinator has them.
            perform(playersListed)
        }
        Task.detached {
            await attachLogin(coordinator: coordinator, perform: perform, logger: logger, environment: environment)
        }
    }

    static func attachPlayers(
        coordinator: PolicyCoordinator, perform: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
        stateDirectory: URL, logger: Logger
    ) async {
        let bus: BusConnection
        do {
            bus = try BusConnection.session()
        } catch {
            logger.notice("no session bus (\(error)): MPRIS players are not paused; interruptions hold streams instead")
            return
        }
        let controller = MPRISController(bus: bus, logger: logger)
        // The pauses a previous run left (a crash) are read now and decided once the players
        // are known: discovery is bounded by the controller's call timeout per player.
        let pauses = MPRISPauses(
            buttons: controller, journalFile: JournalFile(directory: stateDirectory, logger: logger), loop: coordinator.loop)
        if pauses.leftoversAtStart > 0 {
            logger.info("MPRIS: a previous run left \(pauses.leftoversAtStart) players paused by us; deciding once the graph and the players are known")
        }
        perform { coordinator.attachPlayers(pauses) }
        do {
            try await controller.start { event in perform { coordinator.playerEvent(event) } }
            perform { coordinator.playersDiscovered() }
            logger.info("watching MPRIS players on the session bus")
            // An explicit session's app takes its controls through the session API's signal.
            let controls = NowPlayingPlayer.Controls(
                current: { coordinator.nowPlaying }, remoteCommand: { coordinator.hooks.remoteCommand?($0, $1) == true })
            if let player = await NowPlayingPlayer.start(
                bus: bus, buttons: controller, loop: coordinator.loop, controls: controls, logger: logger)
            {
                perform {
                    coordinator.hooks.nowPlayingChanged = { player.show($0) }  // the player lives as long as the daemon
                    player.show(coordinator.nowPlaying)
                }
            }
        } catch {
            // The journal stays as it is: a later run that can reach the players decides.
            logger.warning("cannot watch MPRIS players: \(error)")
        }
    }

    static func attachLogin(
        coordinator: PolicyCoordinator, perform: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
        logger: Logger, environment: [String: String], names: LogindNames = .standard
    ) async {
        let address = environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket"
        do {
            let bus = try BusConnection(address: address)
            let watcher = LogindWatcher(bus: bus, names: names, logger: logger)
            try await watcher.start(sessionID: environment["XDG_SESSION_ID"], processID: UInt32(getpid())) { event in
                perform { coordinator.loginChanged(event) }
            }
        } catch {
            logger.notice("no logind on the system bus (\(error)): screen lock and sleep are not followed")
        }
    }
}

extension PolicyCoordinator {
    /// logind news, on the loop.
    func loginChanged(_ event: LoginEvent) {
        switch event {
        case .screenLocked(let locked):
            guard engine.screenLocked != locked else { return }
            logger.info("screen \(locked ? "locked" : "unlocked")")
            setScreenLocked(locked)
        case .sleep:
            logger.info("system going to sleep")
            submit(.sleep)
        case .wake:
            logger.info("system woke up")
            submit(.wake)
        }
    }
}
