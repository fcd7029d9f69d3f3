import ArgumentParser
import Foundation

/// `audiosessionctl demo`: the main job, shown on a private PipeWire with virtual devices.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a scripted scenario on a private PipeWire with virtual devices and print its timeline.",
        discussion: """
            Starts its own PipeWire in a temporary runtime dir (your session's audio is never touched), \
            virtual devices, a private session bus, audiosessiond, and real clients (pw-cat, mpv with MPRIS); then \
            acts like a user and apps would and prints what the daemon did, as seen by independent observers, in \
            three acts: routes, then enforcement, then the same policy on a private pure PulseAudio 16 server. Stops \
            every process it started before it exits, also on failure.
            """)

    @Option(help: ArgumentHelp("The audiosessiond binary to run (default: next to audiosessionctl, else PATH).", valueName: "path"))
    var daemon: String?

    func run() throws {
        let timeline = DemoTimeline()
        let scenario = DemoScenario(timeline: timeline, daemonPath: try Self.daemonPath(daemon), controlPath: Self.controlPath)
        try scenario.run()
        timeline.heading("demo done: every process it started is stopped.")
    }

    /// This very binary: the demo runs `audiosessionctl silent` and `run` as a user would.
    private static var controlPath: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    }

    /// `--daemon`, else the audiosessiond beside this binary, else the one in PATH.
    static func daemonPath(_ daemon: String?) throws -> String {
        if let daemon { return daemon }
        let sibling = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("audiosessiond").path
        if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/audiosessiond"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw DemoError.daemonNotFound(sibling)
    }
}
