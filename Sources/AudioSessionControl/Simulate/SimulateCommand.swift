import ArgumentParser
import Dispatch
import Foundation
import PipeWireSandbox

/// `audiosessionctl simulate -- APP ARGS`: the app against a simulated desktop, and the things
/// Apple's Simulator cannot do — a call, headphones, a USB device, the silent switch, the screen
/// lock, sleep, PipeWire restarting, a notification, another app's music — made to happen at a
/// prompt or from a script, with every signal its session receives printed as it comes.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run an app on a simulated desktop and make calls, headphones, USB devices, the silent switch, the lock and more happen to it.",
        discussion: """
            Starts a private PipeWire (with pipewire-pulse) whose sound card has a speaker, a headphone jack and two \
            microphones, a private session bus with a simulated logind, and audiosessiond with the shipped rules; runs \
            APP there (its session API calls, MPRIS and pulse or PipeWire streams all reach these, never your own \
            session); then takes commands at a prompt, or from --script, one per line: call start|end, headphones \
            in|out, usb in|out, silent on|off, lock, unlock, sleep, wake, services reset, notification, music \
            start|stop, wait SECONDS, status, history, help, quit (help at the prompt says what each does; \
            docs/simulate.md has them all).

            Each command is carried out as a user or another app would; what the daemon decides is printed as the \
            app's session receives it (signal), what the daemon does (daemon), and the app's own output (app), on one \
            timeline. Everything it started is stopped when it exits (quit, end of script, Ctrl-D, Ctrl-C, SIGTERM). \
            Arrow-key history: run it under rlwrap.
            """)

    @Option(help: ArgumentHelp("Read the commands from this file, one per line (# comments), instead of the prompt.", valueName: "file"))
    var script: String?

    @Option(help: ArgumentHelp(
        "Devices there from the start besides the sound card, comma-separated: \(SimulatedDesktop.ExtraDevice.allCases.map { "\($0.rawValue) (\($0.meaning))" }.joined(separator: ", ")).",
        valueName: "list"))
    var devices: String?

    @Option(help: ArgumentHelp("The audiosessiond binary to run (default: next to audiosessionctl, else PATH).", valueName: "path"))
    var daemon: String?

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The app to run, after --, and its arguments.", valueName: "app"))
    var command: [String] = []

    mutating func validate() throws {
        _ = try extraDevices()
        if command.first == "--" { command.removeFirst() }
        guard !command.isEmpty else { throw ValidationError("say which app to run: audiosessionctl simulate -- APP [ARGS...]") }
    }

    func run() async throws {
        let lines: AsyncStream<String>
        let interactive: Bool
        if let script {
            guard let text = try? String(contentsOfFile: script, encoding: .utf8) else {
                throw ValidationError("cannot read the script \(script)")
            }
            lines = AsyncStream { continuation in
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) { continuation.yield(String(line)) }
                continuation.finish()
            }
            interactive = false
        } else {
            lines = Self.standardInputLines()
            interactive = isatty(STDIN_FILENO) == 1
        }
        let timeline = DemoTimeline()
        timeline.heading("audiosession simulator — a private PipeWire and session bus; your own audio is untouched. Type help.")
        let desktop: SimulatedDesktop
        do {
            desktop = try await SimulatedDesktop.start(timeline: timeline, daemonPath: try DemoCommand.daemonPath(daemon))
        } catch let error as SimulatorError {
            throw ValidationError(error.description)
        }
        let monitor = try SimulatorMonitor(timeline: timeline, busAddress: desktop.bus.address)
        let stopper = Self.stopOnSignals {
            monitor.stop()
            desktop.stop()
        }
        defer {
            stopper.forEach { $0.cancel() }
            monitor.stop()
            desktop.stop()
        }
        try await monitor.start()
        try await desktop.add(try extraDevices())
        await monitor.settle()
        let program = command[0]
        let app = try desktop.launch(program, Array(command.dropFirst()))
        monitor.follow(app, name: URL(fileURLWithPath: program).lastPathComponent)
        timeline.say(.app, "$ \(command.joined(separator: " "))  (pid \(app.pid))")
        await monitor.settle(limit: .seconds(10))

        var history: [String] = []
        if interactive { Self.prompt() }
        for await line in lines {
            let action: SimulatorAction?
            do {
                action = try SimulatorAction.parse(line)
            } catch {
                timeline.note("\(error)")
                if interactive { Self.prompt() }
                continue
            }
            guard let action else {
                if interactive { Self.prompt() }
                continue
            }
            if !interactive { timeline.note("> \(line.trimmingCharacters(in: .whitespaces))") }
            history.append(line.trimmingCharacters(in: .whitespaces))
            switch action {
            case .quit:
                break
            case .help:
                timeline.note("commands:\n" + SimulatorAction.helpText)
            case .history:
                timeline.note(history.enumerated().map { "\($0.offset + 1)  \($0.element)" }.joined(separator: "\n           "))
            case .status:
                timeline.note(Self.status(on: desktop).replacingOccurrences(of: "\n", with: "\n           "))
            default:
                do {
                    try await desktop.perform(action)
                } catch {
                    timeline.note("could not: \(error)")
                }
                await monitor.settle()
            }
            if action == .quit { break }
            if interactive { Self.prompt() }
        }
        timeline.heading("simulation done: the app and every process the simulator started are stopped.")
    }

    private func extraDevices() throws -> [SimulatedDesktop.ExtraDevice] {
        try (devices ?? "").split(separator: ",").map { name in
            let name = name.trimmingCharacters(in: .whitespaces)
            guard let device = SimulatedDesktop.ExtraDevice(rawValue: name) else {
                throw ValidationError(
                    "no device '\(name)': say \(SimulatedDesktop.ExtraDevice.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return device
        }
    }

    private static func prompt() {
        FileHandle.standardOutput.write(Data("simulate> ".utf8))
    }

    /// Lines of standard input, read on a thread of their own (a read blocks).
    private static func standardInputLines() -> AsyncStream<String> {
        AsyncStream { continuation in
            let thread = Thread {
                while let line = readLine() { continuation.yield(line) }
                continuation.finish()
            }
            thread.start()
        }
    }

    /// `audiosessionctl status` against the simulated desktop's daemon.
    private static func status(on desktop: SimulatedDesktop) -> String {
        let control = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        return (try? ManagedProcess.run(
            control, ["status"], environment: ProcessInfo.processInfo.environment.merging(desktop.appEnvironment) { $1 },
            logDirectory: desktop.sandbox.logDirectory)) ?? "status failed"
    }

    /// Ctrl-C or SIGTERM at any moment: everything started is stopped before exiting.
    private static func stopOnSignals(_ stop: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                stop()
                FileHandle.standardOutput.write(Data("\nsimulation stopped: every process it started is stopped.\n".utf8))
                Glibc.exit(128 + number)
            }
            source.resume()
            return source
        }
    }
}
