import Foundation
import Synchronization

/// A child process we started: output captured to files, stopped by PID (SIGTERM, then
/// SIGKILL after a deadline) on `terminate()`, on `deinit`, and at the test process's exit.
///
/// Spawned with `posix_spawn`, a clean signal mask and default signal dispositions: the test
/// runner's threads block signals, and a child inheriting a blocked SIGTERM (paplay does)
/// would only ever die by SIGKILL.
public final class ManagedProcess: @unchecked Sendable {
    public let executable: String
    public let arguments: [String]
    public let pid: Int32
    public let outputURL: URL
    public let errorURL: URL
    private let state = Mutex<Int32?>(nil)  // exit status once reaped

    /// Starts `executable` (a name looked up in PATH, or a path) with exactly `environment`.
    public init(_ executable: String, _ arguments: [String] = [], environment: [String: String], logDirectory: URL)
        throws
    {
        let path = try Self.resolve(executable, path: environment["PATH"])
        self.executable = executable
        self.arguments = arguments
        let stem = "\(URL(fileURLWithPath: executable).lastPathComponent)-\(UUID().uuidString.prefix(8))"
        outputURL = logDirectory.appendingPathComponent("\(stem).out")
        errorURL = logDirectory.appendingPathComponent("\(stem).err")
        pid = try Self.spawn(
            path: path, arguments: [executable] + arguments, environment: environment,
            stdout: outputURL.path, stderr: errorURL.path)
        ProcessRegistry.shared.register(pid)
    }

    deinit { terminate() }

    /// Reaps the child if it has exited; true while it runs.
    public var isRunning: Bool {
        state.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, WNOHANG)
            if result == pid {
                status = Self.exitCode(raw)
                return false
            }
            if result < 0 {
                status = -1  // not our child any more (already reaped elsewhere)
                return false
            }
            return true
        }
    }

    /// The exit status once it has exited (nil while running); 128+N for signal N.
    public var exitStatus: Int32? { isRunning ? nil : state.withLock { $0 } }

    /// What it wrote so far, decoded leniently: one byte that is not UTF-8 (a name cut short,
    /// a binary's garbage) must not make the whole output look empty.
    public var output: String { Self.read(outputURL) }
    public var errorOutput: String { Self.read(errorURL) }

    private static func read(_ url: URL) -> String {
        guard let data = try? Data(contentsOf: url) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// SIGTERM, wait up to `grace`, then SIGKILL; reaps the child. Idempotent.
    public func terminate(grace: Duration = .seconds(3)) {
        if isRunning {
            signalGroup(SIGTERM)
            let deadline = ContinuousClock.now + grace
            while isRunning && ContinuousClock.now < deadline { usleep(2_000) }
            if isRunning {
                signalGroup(SIGKILL)
                state.withLock { status in
                    var raw: Int32 = 0
                    if status == nil { status = waitpid(pid, &raw, 0) == pid ? Self.exitCode(raw) : -1 }
                }
            }
        }
        ProcessRegistry.shared.unregister(pid)
    }

    /// Signals the child's process group (the child leads it), or the child alone.
    private func signalGroup(_ signal: Int32) {
        if kill(-pid, signal) != 0 { kill(pid, signal) }
    }

    /// Waits for a process that is expected to exit on its own. When it does not, the error
    /// says what each of its threads was doing (a daemon that hangs on SIGTERM: blocked in a
    /// futex, or running).
    public func waitForExit(timeout: Duration) throws -> Int32 {
        do {
            try waitUntil(timeout: timeout, poll: .milliseconds(2), "\(executable) exits") { !isRunning }
        } catch SandboxError.timeout(let message) {
            throw SandboxError.timeout("\(message); its threads: \(threadStates())")
        }
        ProcessRegistry.shared.unregister(pid)
        return state.withLock { $0 } ?? -1
    }

    /// Each thread's state (``threadStates()``) and, where gdb is installed, its stack: for the
    /// message of a failure where a process stopped reacting.
    public func stacks() -> String {
        let gdb = "/usr/bin/gdb"
        guard FileManager.default.isExecutableFile(atPath: gdb) else { return threadStates() + " (no gdb for their stacks)" }
        let output = (try? Self.run(
            gdb, ["-p", String(pid), "-batch", "-ex", "thread apply all bt 30"], environment: [:],
            logDirectory: FileManager.default.temporaryDirectory, timeout: .seconds(30))) ?? "gdb failed"
        let frames = output.split(separator: "\n").filter { $0.hasPrefix("Thread ") || $0.hasPrefix("#") }
        return threadStates() + "\n" + frames.joined(separator: "\n")
    }

    /// Lets the children started from now on dump core if they crash (this process's soft core
    /// limit raised to its hard one; children inherit it), so that ``crashReport(program:)`` can say
    /// where. Called before the daemon under test is started.
    public static func allowCoreDumps() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_CORE.rawValue), &limit) == 0, limit.rlim_cur != limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
    }

    /// For a child killed by a signal that dumps core (SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE,
    /// SIGTRAP): every thread's backtrace from the core file it left, where the kernel's
    /// `core_pattern` names a plain file in its working directory (`core`, or `core.PID`); the
    /// file is removed. Nil for any other end, or when there is no core to read. `program` is
    /// the binary the child ran when it is not ``executable`` (a shell that `exec`s it): gdb
    /// reads the core's symbols from it.
    public func crashReport(program: String? = nil) -> String? {
        guard let status = crashSignalStatus else { return nil }
        let directory = FileManager.default.currentDirectoryPath
        guard let core = coreFile else {
            return "signal \(status - 128), no core file in \(directory) (core_pattern: \(((try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)))"
        }
        defer { try? FileManager.default.removeItem(atPath: core) }
        let gdb = "/usr/bin/gdb"
        guard FileManager.default.isExecutableFile(atPath: gdb) else { return "signal \(status - 128), core in \(core); no gdb to read it" }
        let output: String
        do {
            output = try Self.run(
                gdb, ["-batch", "-ex", "thread apply all bt 40", program ?? Self.resolvedPath(executable), core],
                environment: ["PATH": "/usr/bin:/bin", "HOME": FileManager.default.temporaryDirectory.path],
                logDirectory: FileManager.default.temporaryDirectory, timeout: .seconds(60))
        } catch {
            return "signal \(status - 128); gdb could not read its core: \(error)"
        }
        let frames = output.split(separator: "\n").filter { $0.hasPrefix("Thread ") || $0.hasPrefix("#") || $0.hasPrefix("Program terminated") }
        guard !frames.isEmpty else { return "signal \(status - 128); gdb said of its core:\n\(output.suffix(2000))" }
        return "signal \(status - 128); its threads at the crash:\n" + frames.joined(separator: "\n")
    }

    /// The exit status (128 + N) of a child killed by a signal N that dumps core; nil otherwise.
    private var crashSignalStatus: Int32? {
        guard let status = exitStatus, [SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTRAP].map({ 128 + $0 }).contains(status)
        else { return nil }
        return status
    }

    /// The core a crashed child left in the working directory, if any.
    private var coreFile: String? {
        let directory = FileManager.default.currentDirectoryPath
        return ["\(directory)/core.\(pid)", "\(directory)/core"].first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Removes the core a crashed child left, unread: for a crash the caller does not judge (a
    /// real app that aborts as it is stopped), so that no core is left in the checkout.
    /// Whether there was one.
    @discardableResult
    public func discardCore() -> Bool {
        guard crashSignalStatus != nil, let core = coreFile else { return false }
        return (try? FileManager.default.removeItem(atPath: core)) != nil
    }

    /// How a child that is not running any more ended: `name exited (status N, 128+N for signal
    /// N)`, and after a crash its ``crashReport(program:)`` (which removes the core: ask once).
    public func describeEnd(program: String? = nil) -> String {
        let name = URL(fileURLWithPath: program ?? executable).lastPathComponent
        let ended = "\(name) exited (status \(exitStatus.map(String.init) ?? "?"), 128+N for signal N)"
        return crashReport(program: program).map { "\(ended): \($0)" } ?? ended
    }

    private static func resolvedPath(_ executable: String) -> String {
        executable.hasPrefix("/") ? executable : (try? resolve(executable, path: ProcessInfo.processInfo.environment["PATH"])) ?? executable
    }

    /// Each thread's name, state and kernel wait channel (`/proc/PID/task/*`).
    public func threadStates() -> String {
        let tasks = "/proc/\(pid)/task"
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return ids.sorted().map { id in
            func read(_ file: String) -> String {
                ((try? String(contentsOfFile: "\(tasks)/\(id)/\(file)", encoding: .utf8)) ?? "?")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let stat = read("stat")
            let state = stat.split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "?"
            return "\(id) '\(read("comm"))' \(state) in \(read("wchan"))"
        }.joined(separator: ", ")
    }

    /// Runs a command to completion and returns its standard output; throws on failure.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], logDirectory: URL,
        timeout: Duration = .seconds(10)
    ) throws -> String {
        let child = try ManagedProcess(executable, arguments, environment: environment, logDirectory: logDirectory)
        defer { child.terminate() }
        let status = try child.waitForExit(timeout: timeout)
        guard status == 0 else {
            throw SandboxError.commandFailed(
                "\(executable) \(arguments.joined(separator: " ")) exited with \(status): \(child.errorOutput)")
        }
        return child.output
    }

    static func resolve(_ executable: String, path: String?) throws -> String {
        if executable.contains("/") { return executable }
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(executable)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw SandboxError.missingExecutable(executable)
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34+), which Swift does not import.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
        }()

    /// glibc's `POSIX_SPAWN_SETSID` (2.26+), which Swift does not import.
    private static let spawnSetSID: Int32 = 0x80

    private static func exitCode(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }

    private static func spawn(
        path: String, arguments: [String], environment: [String: String], stdout: String, stderr: String
    ) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing else of ours leaks into the child (the test runner's pipes, PipeWire sockets).
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // A session of its own, and so a process group of its own: a child signalling its
        // group never reaches the test runner, and terminate() reaches the child's own children
        // too. The session is also its scheduling group (the kernel's autogroup), as systemd
        // gives each service and a desktop each app a cgroup of its own: a CPU hog beside the
        // tests competes with the daemon, the servers and the apps as another program does on a
        // desktop, not as a thread of their own group (which left the daemon's fade steps and
        // pw-cat's buffers, filled on its main loop, waiting 30-150 ms for a CPU).
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | Self.spawnSetSID))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: Int32 = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw SandboxError.commandFailed("posix_spawn \(path): \(String(cString: strerror(result)))")
        }
        return pid
    }
}

/// Every child still alive, killed at process exit so none outlives a failed test run, nor
/// one stopped by Ctrl-C, SIGTERM or a hang-up: each child has a session of its own, so the
/// signal that stops the test runner reaches none of them.
final class ProcessRegistry: Sendable {
    static let shared = ProcessRegistry()
    private let pids = Mutex<Set<Int32>>([])

    private init() {
        atexit { ProcessRegistry.shared.killAll() }
        StopSignals.install { ProcessRegistry.shared.killAll() }
    }

    private func killAll() {
        for pid in pids.withLock({ $0 }) {
            if kill(-pid, SIGKILL) != 0 { kill(pid, SIGKILL) }
        }
    }

    func register(_ pid: Int32) { _ = pids.withLock { $0.insert(pid) } }
    func unregister(_ pid: Int32) { _ = pids.withLock { $0.remove(pid) } }
    var alive: Set<Int32> { pids.withLock { $0 } }
}

public enum SandboxError: Error, CustomStringConvertible {
    case missingExecutable(String)
    case commandFailed(String)
    case timeout(String)
    case notRunning(String)
    /// A private PipeWire prefix (``PipeWireInstallation``) is not there or incomplete.
    case missingInstallation(String)

    public var description: String {
        switch self {
        case .missingExecutable(let name): "executable not found in PATH: \(name)"
        case .commandFailed(let message): message
        case .timeout(let message): message
        case .notRunning(let message): message
        case .missingInstallation(let message): message
        }
    }
}

/// SIGINT, SIGTERM and SIGHUP, caught: the handler only writes the signal's number to a pipe
/// (what a handler may do); a thread of its own reads it, runs `cleanUp`, and lets the signal
/// end the process as it would have. A caught signal is reset to its default in every program
/// the process starts, so no child inherits the catching.
enum StopSignals {
    private nonisolated(unsafe) static var pipeWriteEnd: Int32 = -1

    static func install(cleanUp: @escaping @Sendable () -> Void) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        pipeWriteEnd = ends[1]
        let readEnd = ends[0]
        let thread = Thread {
            var number: Int32 = 0
            while read(readEnd, &number, MemoryLayout<Int32>.size) != MemoryLayout<Int32>.size {}
            cleanUp()
            signal(number, SIG_DFL)
            kill(getpid(), number)  // to the process: this thread may block it
        }
        thread.name = "stop-signals"
        thread.start()
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var value = number
                _ = write(StopSignals.pipeWriteEnd, &value, MemoryLayout<Int32>.size)
            }
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }
}
