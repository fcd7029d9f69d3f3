import Foundation
import PipeWireSandbox
import Synchronization

/// A native PipeWire client that never touches its streams' Props, as many apps do (SDL
/// games, GStreamer's `pipewiresink`): the bench's stream farm (`pw-reaction farm`, from
/// `Benchmarks/Reaction/observer/pw-reaction.c`), built with `cc` beside the test binary.
/// There the sandbox runs it on the stack under test's libraries, so its streams' converter is
/// that release's: PipeWire 1.6's reports no channel volumes at all until someone sets its
/// Props. `pw-cat` always sets its volume, so it cannot stand in for such an app.
enum NativeStreamClient {
    private static let built = Mutex<String?>(nil)

    /// The program, built once per test run; the compiler's output goes to `logDirectory`.
    static func program(logDirectory: URL) throws -> String {
        try built.withLock { path in
            if let path { return path }
            let source = FreshMachineTests.root.appendingPathComponent("Benchmarks/Reaction/observer/pw-reaction.c")
            let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            let output = products.appendingPathComponent("native-stream-farm")
            let environment = ProcessInfo.processInfo.environment
            let flags = try ManagedProcess.run(
                "/usr/bin/pkg-config", ["--cflags", "--libs", "libpipewire-0.3"], environment: environment,
                logDirectory: logDirectory
            ).split(whereSeparator: \.isWhitespace).map(String.init)
            // Built aside and renamed: a test binary of another run may be starting the old one.
            let partial = products.appendingPathComponent(".native-stream-farm.\(getpid())")
            try ManagedProcess.run(
                "/usr/bin/cc", ["-O2", "-o", partial.path, source.path] + flags + ["-lm"], environment: environment,
                logDirectory: logDirectory, timeout: .seconds(60))
            _ = rename(partial.path, output.path)
            path = output.path
            return output.path
        }
    }

    /// `count` streams of `role` named `<prefix>-0`, `<prefix>-1`… playing silence, on the
    /// sandbox's stack; stopped with the sandbox.
    static func play(_ count: Int = 1, role: String, prefix: String, in sandbox: PrivatePipeWire) throws -> ManagedProcess {
        try sandbox.spawn(program(logDirectory: sandbox.logDirectory), ["farm", String(count), role, prefix])
    }
}
