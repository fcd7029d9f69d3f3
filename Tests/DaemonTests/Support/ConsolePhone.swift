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

/// A console phone of the tests: its process, and the FIFO its commands go into.
protocol CommandedPhone: AnyObject {
    var process: ManagedProcess { get }
    var commands: FileHandle { get }
}

extension CommandedPhone {
    /// Sends one command line (`call sip:…`, `bye`, `terminate`, `quit`).
    func send(_ command: String) {
        try? commands.write(contentsOf: Data((command + "\n").utf8))
    }

    /// Quits the phone (it hangs up and releases its devices), and stops its process. A phone
    /// that crashed (Twinkle can abort as it closes its devices, see
    /// `twoUnknownTwinklePhonesCallingEachOtherAreBothHeard`) leaves no core behind: a test
    /// that judges its end reads it first (``ManagedProcess/describeEnd(program:)``).
    func stop() {
        guard process.isRunning else {
            if process.discardCore(), let status = process.exitStatus {
                print("\(process.pid) had ended by itself, of signal \(status - 128); its core is removed")
            }
            return
        }
        send("quit")
        process.terminate()
        process.discardCore()
    }
}
