import ArgumentParser
import AudioSession
import Foundation

/// `audiosessionctl run --category C -- CMD...`: gives an app with no session API a session.
///
/// Creates an explicit session, configures it, activates it, runs CMD with `audiosession.id`
/// in `PIPEWIRE_PROPS` / `PULSE_PROP` (its descendants also join by ancestry), forwards
/// signals to it, deactivates when it exits (notifying others) and exits with its status.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a command inside an audio session with the given category.",
        discussion: "Example: audiosessionctl run --category playAndRecord --mode voiceChat -- my-voip-app")

    @Option(
        help: ArgumentHelp("Category: \(Category.allCases.map(\.wireName).joined(separator: ", ")).", valueName: "category"),
        completion: .list(Category.allCases.map(\.wireName)))
    var category: String

    @Option(help: ArgumentHelp("Mode.", valueName: "mode"), completion: .list(Mode.allCases.map(\.wireName)))
    var mode: String = "default"

    @Option(help: ArgumentHelp("Comma-separated category options (mixWithOthers,duckOthers,...).", valueName: "a,b"))
    var options: String = ""

    @Option(name: .customLong("prefer-rate"), help: ArgumentHelp("Preferred sample rate.", valueName: "hz"))
    var preferredRate: Double?

    @Option(name: .customLong("prefer-io-buffer"), help: ArgumentHelp("Preferred I/O buffer duration.", valueName: "seconds"))
    var preferredIOBuffer: Double?

    @Option(help: ArgumentHelp("App name for record permission (default: the command's name).", valueName: "name"))
    var app: String?

    @OptionGroup var connection: DaemonConnectionOptions

    @Argument(parsing: .postTerminator, help: "The command and its arguments (after --).")
    var command: [String]

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("give the command to run after --") }
        guard Category(wireName: category) != nil else {
            throw ValidationError("unknown category '\(category)' (one of \(Category.allCases.map(\.wireName).joined(separator: ", ")))")
        }
        guard Mode(wireName: mode) != nil else { throw ValidationError("unknown mode '\(mode)'") }
        guard parsedOptions != nil else { throw ValidationError("unknown option in '\(options)'") }
    }

    private var parsedOptions: CategoryOptions? {
        CategoryOptions(wireNames: options.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    func run() async throws {
        var status: Int32 = 0
        try await reportingDaemonProblems {
            let appName = app ?? URL(fileURLWithPath: command[0]).lastPathComponent
            let session = AudioSession(address: connection.busAddress, app: appName)
            try await session.setCategory(Category(wireName: category)!, mode: Mode(wireName: mode)!, options: parsedOptions ?? [])
            if let preferredRate { try await session.setPreferredSampleRate(preferredRate) }
            if let preferredIOBuffer { try await session.setPreferredIOBufferDuration(preferredIOBuffer) }
            do {
                try await session.setActive(true)
            } catch let failure as AudioSessionFailure where failure.code != .mediaServicesFailed {
                // The control tower said no (a call holds the audio): the command still runs, and
                // the policy holds its streams until the session may play.
                FileHandle.standardError.write(Data("audiosessionctl: not activated: \(failure.message); running anyway\n".utf8))
            }
            var environment = ProcessInfo.processInfo.environment
            for (key, value) in try await session.streamEnvironment() {
                environment[key] = Self.merged(environment[key], with: value, key: key)
            }
            status = try await ChildProcess.run(command, environment: environment)
            try? await session.setActive(false, options: .notifyOthersOnDeactivation)
            await session.close()
        }
        throw ExitCode(status)
    }

    /// Adds our property to one the user already set (`PIPEWIRE_PROPS="{ a = b }"`).
    static func merged(_ existing: String?, with ours: String, key: String) -> String {
        guard let existing, !existing.isEmpty else { return ours }
        if key == "PIPEWIRE_PROPS", let close = existing.lastIndex(of: "}") {
            let inner = ours.trimmingCharacters(in: CharacterSet(charactersIn: "{} "))
            return existing[..<close] + " " + inner + " }"
        }
        return existing + " " + ours
    }
}

/// Runs a command, forwarding terminal and termination signals to it; returns its exit
/// status (128 + signal when a signal ended it, like a shell).
enum ChildProcess {
    static let forwarded: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2]

    static func run(_ command: [String], environment: [String: String]) async throws -> Int32 {
        let process = Process()
        process.executableURL = try resolve(command[0], path: environment["PATH"])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.yield(); exited.continuation.finish() }
        var sources: [any DispatchSourceSignal] = []
        for signal in forwarded {
            Foundation.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler { if process.isRunning { kill(process.processIdentifier, signal) } }
            source.resume()
            sources.append(source)
        }
        defer {
            for source in sources { source.cancel() }
            for signal in forwarded { Foundation.signal(signal, SIG_DFL) }
        }
        do {
            try process.run()
        } catch {
            throw DaemonProblem("cannot run \(command[0]): \(error.localizedDescription)")
        }
        for await _ in exited.stream {}
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    private static func resolve(_ name: String, path: String?) throws -> URL {
        if name.contains("/") { return URL(fileURLWithPath: name) }
        for directory in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return URL(fileURLWithPath: candidate) }
        }
        throw DaemonProblem("\(name): command not found")
    }
}
