import ArgumentParser
import AudioSessionVersion

/// `audiosessionctl`: the command line of audiosession.
public struct AudioSessionCtl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "audiosessionctl",
        abstract: "Inspect and control the audiosession manager.",
        version: AudioSessionVersion.version,
        subcommands: [
            StatusCommand.self, MonitorCommand.self, RunCommand.self, SilentCommand.self, PermissionCommand.self,
            GraphCommand.self, RulesCommand.self, DemoCommand.self, SimulateCommand.self,
        ])

    public init() {}

    /// The entry point `main.swift` calls: parses the arguments and runs the (async) subcommand.
    public static func runFromCommandLine() async {
        let main: () async -> Void = main
        await main()
    }
}
