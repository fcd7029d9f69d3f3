import Foundation

/// A small C client kept as source in the sandbox (a device exported the way a session manager
/// exports one: spa_device methods and hook emission are C macros), built once with `cc` and
/// pkg-config's libpipewire flags and cached by the source's hash.
enum HelperProgram {
    /// Builds `source` as `name` (once per source version) and returns the binary's path.
    static func executable(
        named name: String, source: String, environment: [String: String], logDirectory: URL
    ) throws -> String {
        var hasher = Hasher32()
        hasher.combine(source)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audiosession-\(name)-\(hasher.value)")
        let binary = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: binary.path) { return binary.path }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Unique per build: tests of one process may build it concurrently.
        let unique = "\(getpid())-\(UUID().uuidString.prefix(8))"
        let sourceFile = directory.appendingPathComponent("\(name)-\(unique).c")
        try source.write(to: sourceFile, atomically: true, encoding: .utf8)
        let partial = directory.appendingPathComponent("\(name)-\(unique).partial")
        let flags = try ManagedProcess.run(
            "pkg-config", ["--cflags", "--libs", "libpipewire-0.3"], environment: environment, logDirectory: logDirectory)
        let arguments = ["-O1", "-o", partial.path, sourceFile.path] + flags.split(whereSeparator: \.isWhitespace).map(String.init)
        try ManagedProcess.run("cc", arguments, environment: environment, logDirectory: logDirectory, timeout: .seconds(60))
        // rename(2) is atomic: a concurrent builder never sees a half-written binary.
        guard rename(partial.path, binary.path) == 0 else {
            throw SandboxError.commandFailed("cannot install \(binary.path): \(String(cString: strerror(errno)))")
        }
        try? FileManager.default.removeItem(at: sourceFile)
        return binary.path
    }
}
