import Foundation
import PipeWireSandbox

/// What the console SIP phones of the tests (Twinkle, linphonec) share: the program, copied
/// under another name so that no rule knows it, and a FIFO their standard input is read from.
enum ConsolePhone {
    /// `program`, or a copy of it named `binary` in `home` (a call app the rules do not know).
    static func program(_ program: String, as binary: String, in home: URL) throws -> String {
        guard binary != URL(fileURLWithPath: program).lastPathComponent else { return program }
        let copy = home.appendingPathComponent(binary)
        try FileManager.default.copyItem(atPath: program, toPath: copy.path)
        return copy.path
    }

    /// A new FIFO in `home` for the phone's commands.
    static func commandFIFO(in home: URL) throws -> URL {
        let fifo = home.appendingPathComponent("commands")
        guard mkfifo(fifo.path, 0o600) == 0 else { throw SandboxError.commandFailed("mkfifo \(fifo.path): \(errno)") }
        return fifo
    }
}
