#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PulseAudioServer

/// PulseAudio's own stream-interaction modules (`module-role-cork`, `module-role-ducking`:
/// Debian's default.pa loads role-cork) cork and duck by role on their own, which would fight
/// the policy (a mixable session corked anyway, a stream released by us and still corked by
/// them). While the daemon runs they are unloaded; at exit they are loaded again with the
/// arguments they had.
///
/// What was unloaded is journalled before it is, with the server's cookie: after a SIGKILL the
/// next run still knows what to load back at its exit, and a server restarted meanwhile (a new
/// cookie) loaded its own again.
final class RoleModuleTakeover: Sendable {
    static let moduleNames: Set<String> = ["module-role-cork", "module-role-ducking"]

    private let connection: PulseConnection
    private let file: JournalFile<UnloadedModules>
    private let logger: Logger
    private struct State {
        var unloaded = UnloadedModules()
        /// The daemon is exiting: the modules it loads back are left alone.
        var stopped = false
    }

    private let state: LoopBound<State>

    init(connection: PulseConnection, loop: DaemonLoop, stateDirectory: URL, logger: Logger) {
        self.connection = connection
        self.file = JournalFile(directory: stateDirectory, logger: logger)
        self.logger = logger
        state = LoopBound(State(), on: loop)
    }

    /// The server is seen: its role modules are journalled, then unloaded.
    func attach(in snapshot: PulseSnapshot) {
        let journalled = file.read()
        state.unloaded = journalled.serverCookie == snapshot.server.cookie ? journalled : UnloadedModules(serverCookie: snapshot.server.cookie)
        takeOver(in: snapshot)
    }

    /// A module was loaded (by the user, or a script): a role module is taken over too.
    func modulesChanged(in snapshot: PulseSnapshot) { takeOver(in: snapshot) }

    private func takeOver(in snapshot: PulseSnapshot) {
        guard !state.stopped else { return }
        let found = snapshot.modules.values.filter { Self.moduleNames.contains($0.name) }.sorted { $0.index < $1.index }
        guard !found.isEmpty else { return }
        for module in found where !state.unloaded.modules.contains(.init(name: module.name, argument: module.argument)) {
            state.unloaded.modules.append(.init(name: module.name, argument: module.argument))
        }
        file.write(state.unloaded)  // before the unload goes out
        for module in found {
            logger.info("pulse: unloading \(module.name) \(module.argument) while we run (it would cork and duck on its own)")
            connection.unloadModule(module.index)
        }
    }

    /// The server is gone: a new one loads its own.
    func lost() {
        state.unloaded = UnloadedModules()
        file.write(state.unloaded)
    }

    /// The daemon is exiting: the modules are loaded again as they were.
    func restore() {
        state.stopped = true
        for module in state.unloaded.modules {
            logger.info("pulse: loading \(module.name) \(module.argument) again")
            connection.loadModule(module.name, argument: module.argument) { [logger] index in
                if index == nil { logger.warning("pulse: \(module.name) did not load again") }
            }
        }
        state.unloaded.modules.removeAll()
        file.write(state.unloaded)
    }
}

/// The role modules unloaded while the daemon runs, and on which server instance.
struct UnloadedModules: JournalContents {
    static let fileName = "pulseaudio-modules.json"

    struct Module: Codable, Equatable {
        var name: String
        var argument: String
    }

    var serverCookie: UInt32 = 0
    var modules: [Module] = []

    var isEmpty: Bool { modules.isEmpty }

    init() {}

    init(serverCookie: UInt32) {
        self.serverCookie = serverCookie
    }
}
