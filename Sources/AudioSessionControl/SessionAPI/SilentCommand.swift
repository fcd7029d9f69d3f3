import ArgumentParser
import AudioSession

/// `audiosessionctl silent on|off`: the silent switch (ambient and soloAmbient go quiet).
struct SilentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "silent", abstract: "Turn silent mode on or off (silences ambient and soloAmbient sessions).")

    enum Setting: String, ExpressibleByArgument, CaseIterable { case on, off }

    @Argument(help: "on or off.")
    var setting: Setting

    @OptionGroup var connection: DaemonConnectionOptions

    func run() async throws {
        try await reportingDaemonProblems {
            let manager = try connection.manager()
            defer { manager.close() }
            try await manager.setSilentMode(setting == .on)
            print("silent mode \(setting.rawValue)")
        }
    }
}
