import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AudioSessionDaemon
import AudioSessionVersion
import Logging
import SessionPolicy

/// `audiosessiond`: the audio session manager daemon. Thin: parses options, runs the daemon.
@main
struct AudioSessionD: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audiosessiond",
        abstract: "Audio session manager for PipeWire and PulseAudio: AVAudioSession semantics for the Linux desktop.",
        discussion: """
            Attaches to the PipeWire named by PIPEWIRE_REMOTE (else pipewire-0 in XDG_RUNTIME_DIR) as a \
            session-manager peer; where no PipeWire answers but a PulseAudio server does (PULSE_SERVER, else \
            pulse/native in XDG_RUNTIME_DIR), it attaches to PulseAudio as a policy client (--backend chooses). \
            If the server is not running yet it keeps retrying; if it restarts it reconnects and re-applies everything. SIGHUP reloads the policy rules (so does editing them). SIGINT or SIGTERM \
            undo everything the daemon changed, then it exits.
            """,
        version: AudioSessionVersion.version)

    @Option(help: ArgumentHelp(
        "Who links streams to devices: auto (only while no other session manager such as WirePlumber runs), always, or never.",
        valueName: "mode"))
    var linking: LinkingMode = .auto

    @Flag(name: .customLong("no-linking"), help: "The same as --linking=never: leave linking to another session manager.")
    var noLinking = false

    @Flag(name: .customLong("no-bus"),
          help: "Do not serve the session API on D-Bus (without a session bus the daemon runs so anyway).")
    var noBus = false

    @Option(help: ArgumentHelp(
        "The audio server: auto (PipeWire when it answers, else PulseAudio), pipewire, or pulseaudio.", valueName: "server"))
    var backend: BackendChoice = .auto

    @Option(help: ArgumentHelp("PipeWire remote (socket name or absolute path) to attach to.", valueName: "name"))
    var remote: String?

    @Option(name: .customLong("pulse-server"), help: ArgumentHelp(
        "PulseAudio server to attach to (unix:/path; default: PULSE_SERVER, else pulse/native in XDG_RUNTIME_DIR).",
        valueName: "server"))
    var pulseServer: String?

    @Option(name: .customLong("rules"), help: ArgumentHelp(
        "Add a policy-rules directory, read after the standard ones (repeatable).", valueName: "dir"))
    var rulesDirectories: [String] = []

    @Option(name: .customLong("state-dir"), help: ArgumentHelp(
        "Where to journal changes that must not outlive the daemon (default: $XDG_STATE_HOME/audiosession).",
        valueName: "dir"))
    var stateDirectory: String?

    @Flag(name: .shortAndLong, help: "Log every decision and graph change (debug level).")
    var verbose = false

    func validate() throws {
        if noLinking, linking != .auto, linking != .never {
            throw ValidationError("--no-linking means --linking=never; it contradicts --linking=\(linking.rawValue)")
        }
    }

    func run() throws {
        let level: Logger.Level = verbose ? .debug : .info
        let environment = ProcessInfo.processInfo.environment
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, level: level, environment: environment) }
        let logger = Logger(label: "audiosessiond")
        var options = DaemonOptions(linking: noLinking ? .never : linking, remote: remote, extraRulesDirectories: rulesDirectories)
        if let stateDirectory { options.stateDirectory = URL(fileURLWithPath: stateDirectory) }
        options.servesBus = !noBus
        options.backend = backend
        options.pulseServer = pulseServer
        let daemon: AudioSessionDaemon
        do {
            daemon = try AudioSessionDaemon(options: options, logger: logger)
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(error.exitStatus)
        }
        daemon.runUntilTerminated()
    }
}

extension LinkingMode: ExpressibleByArgument {}
extension BackendChoice: ExpressibleByArgument {}
