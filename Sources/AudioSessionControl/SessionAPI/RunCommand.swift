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

    @Flag(help: "Notification sounds neither duck nor interrupt the command (a recording, a performance).")
    var prefersNoInterruptionsFromSystemAlerts = false

    @Flag(help: "When its output goes away, only tell it the route changed (default: interrupt the current media player and hold its audio).")
    var noInterruptionOnRouteDisconnect = false

    @Flag(help: "Let notification sounds play while the command records (default: silenced).")
    var allowSystemSoundsDuringRecording = false

    @Option(help: ArgumentHelp(
        "The session's label (default: the command's name). Its record permission is audiosessionctl's: a permission belongs to the program the system vouches for, never to a name.",
        valueName: "name"))
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
            if prefersNoInterruptionsFromSystemAlerts { try await session.setPrefersNoInterruptionsFromSystemAlerts(true) }
            if noInterruptionOnRouteDisconnect { try await session.setPrefersInterruptionOnRouteDisconnect(false) }
            if allowSystemSoundsDuringRecording { try await session.setAllowHapticsAndSystemSoundsDuringRecording(true) }
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

/// Runs a command, forwarding termination signals to it; returns its exit status (128 + signal
/// when a signal ended it, like a shell).
///
/// The child is spawned with every forwarded signal at its default action and none blocked:
/// what we ignore in order to forward would otherwise be inherited through exec, and the app
/// could not be stopped. It stays in our process group so that it keeps the terminal, and
/// gets the terminal's Ctrl-C and Ctrl-\\ from the terminal itself; those we only ignore.
enum ChildProcess {
    /// Sent to us by name (kill PID, a service manager): passed on.
    static let forwarded: [Int32] = [SIGTERM, SIGHUP, SIGUSR1, SIGUSR2]
    /// Sent by the terminal to the whole foreground group, the child included: not passed on twice.
    static let fromTerminal: [Int32] = [SIGINT, SIGQUIT]

    static func run(_ command: [String], environment: [String: String]) async throws -> Int32 {
        let executable = try resolve(command[0], path: environment["PATH"])
        for signal in forwarded + fromTerminal { Foundation.signal(signal, SIG_IGN) }
        defer { for signal in forwarded + fromTerminal { Foundation.signal(signal, SIG_DFL) } }
        // Listening starts before the child exists: a signal that comes while it is being
        // spawned is passed on as soon as it runs, not lost.
        let target = ForwardingTarget()
        var sources: [any DispatchSourceSignal] = []
        for signal in forwarded {
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler { target.deliver(signal) }
            source.resume()
            sources.append(source)
        }
        defer { for source in sources { source.cancel() } }
        let pid = try spawn(executable.path, command, environment: environment)
        target.started(pid)
        let raw = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
        let signalled = raw & 0x7f
        return signalled == 0 ? (raw >> 8) & 0xff : 128 + signalled
    }

    /// Where forwarded signals go: the child once it runs; until then they wait.
    // Unchecked: `pid` and `pending` are read and written only with `lock` held.
    private final class ForwardingTarget: @unchecked Sendable {
        private let lock = NSLock()
        private var pid: pid_t?
        private var pending: [Int32] = []

        func deliver(_ signal: Int32) {
            let target: pid_t? = lock.withLock {
                if pid == nil { pending.append(signal) }
                return pid
            }
            if let target { kill(target, signal) }
        }

        func started(_ child: pid_t) {
            let waiting: [Int32] = lock.withLock {
                pid = child
                defer { pending.removeAll() }
                return pending
            }
            for signal in waiting { kill(child, signal) }
        }
    }

    /// posix_spawn with the forwarded and terminal signals reset to their defaults and an empty mask.
    private static func spawn(_ path: String, _ arguments: [String], environment: [String: String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in forwarded + fromTerminal { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, nil, &attributes, argv, envp)
        guard result == 0 else {
            throw DaemonProblem("cannot run \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return pid
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
