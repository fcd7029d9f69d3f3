import Foundation
import Synchronization

/// A child process we started: output captured to files, stopped by PID (SIGTERM, then
/// SIGKILL after a deadline) on `terminate()`, on `deinit`, and at the test process's exit.
public final class ManagedProcess: @unchecked Sendable {
    public let executable: String
    public let arguments: [String]
    public let pid: Int32
    public let outputURL: URL
    public let errorURL: URL
    private let process: Process

    /// Starts `executable` (a name looked up in PATH, or a path) with exactly `environment`.
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String],
        workingDirectory: URL? = nil, logDirectory: URL
    ) throws {
        let path = try Self.resolve(executable, path: environment["PATH"])
        self.executable = executable
        self.arguments = arguments
        let stem = "\(URL(fileURLWithPath: executable).lastPathComponent)-\(UUID().uuidString.prefix(8))"
        outputURL = logDirectory.appendingPathComponent("\(stem).out")
        errorURL = logDirectory.appendingPathComponent("\(stem).err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        pid = process.processIdentifier
        ProcessRegistry.shared.register(pid)
    }

    deinit { terminate() }

    public var isRunning: Bool { process.isRunning }

    /// The exit status once it has exited (nil while running).
    public var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    public var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
    public var errorOutput: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }

    /// SIGTERM, wait up to `grace`, then SIGKILL; reaps the child. Idempotent.
    public func terminate(grace: Duration = .seconds(3)) {
        if process.isRunning {
            kill(pid, SIGTERM)
            let deadline = ContinuousClock.now + grace
            while process.isRunning && ContinuousClock.now < deadline { usleep(5_000) }
            if process.isRunning { kill(pid, SIGKILL) }
            process.waitUntilExit()
        }
        ProcessRegistry.shared.unregister(pid)
    }

    /// Waits for a process that is expected to exit on its own.
    public func waitForExit(timeout: Duration) throws -> Int32 {
        try waitUntil(timeout: timeout, "\(executable) exits") { !process.isRunning }
        ProcessRegistry.shared.unregister(pid)
        return process.terminationStatus
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
}

/// Every child still alive, killed at process exit so none outlives a failed test run.
final class ProcessRegistry: Sendable {
    static let shared = ProcessRegistry()
    private let pids = Mutex<Set<Int32>>([])

    private init() {
        atexit {
            for pid in ProcessRegistry.shared.pids.withLock({ $0 }) { kill(pid, SIGKILL) }
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

    public var description: String {
        switch self {
        case .missingExecutable(let name): "executable not found in PATH: \(name)"
        case .commandFailed(let message): message
        case .timeout(let message): message
        case .notRunning(let message): message
        }
    }
}
