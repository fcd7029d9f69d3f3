import ArgumentParser
import AudioSessionDaemon
import Logging

/// `audiosessiond`: the audio session manager daemon. Thin: parses options, runs the daemon.
@main
struct AudioSessionD: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audiosessiond",
        abstract: "Audio session manager for PipeWire: AVAudioSession semantics for the Linux desktop.",
        discussion: """
            Attaches to the PipeWire named by PIPEWIRE_REMOTE (else pipewire-0 in XDG_RUNTIME_DIR) as a \
            session-manager peer. If PipeWire is not running yet it says so once and keeps retrying; if PipeWire \
            restarts it reconnects and re-applies everything. Stops cleanly on SIGINT or SIGTERM.
            """)

    @Flag(name: .customLong("no-linking"),
          help: "Link nothing; leave linking to another session manager (WirePlumber) and only apply policy.")
    var noLinking = false

    @Option(help: ArgumentHelp("PipeWire remote (socket name or absolute path) to attach to.", valueName: "name"))
    var remote: String?

    @Flag(name: .shortAndLong, help: "Log every decision and graph change (debug level).")
    var verbose = false

    func run() throws {
        let level: Logger.Level = verbose ? .debug : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "audiosessiond")
        let daemon = AudioSessionDaemon(options: DaemonOptions(linksStreams: !noLinking, remote: remote), logger: logger)
        daemon.runUntilTerminated()
    }
}
