import ArgumentParser
import PolicyRules

/// `audiosessionctl rules ...`: policy rules files.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Work with policy rules files (see docs/policy-rules.md).",
        subcommands: [RulesCheckCommand.self])
}

/// `audiosessionctl rules check FILE...`: validates files as the daemon would load them.
struct RulesCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate rules files; print each problem as file:line: reason.",
        discussion: """
            Each file is checked on its own and then layered on the shipped defaults, so it may \
            use priority classes they define. Exits 1 if any file has a problem.
            """)

    @Argument(help: "Rules files to check.")
    var files: [String]

    @Option(help: "Shipped rules directory to layer the files on (default: \(RuleLocations.shippedDirectoryVariable), the checkout's or the installed one).")
    var shipped: String?

    func run() throws {
        let result = RulesChecker.run(paths: files, shipped: shipped ?? RuleLocations.standard().shipped)
        print(result.output)
        if result.exitCode != 0 { throw ExitCode(result.exitCode) }
    }
}
