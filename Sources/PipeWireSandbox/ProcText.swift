import Foundation

/// The whole text of a `/proc` file. Foundation's `String(contentsOfFile:)` reads as many bytes
/// as the file's size says, and a `/proc` file says 0: it stops after the first read, 4 KiB
/// (of `/proc/PID/maps`, the first few dozen mappings; of `smaps`, the first few).
public enum ProcText {
    public static func read(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw SandboxError.commandFailed("cannot open \(path)") }
        defer { try? handle.close() }
        return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    }
}
