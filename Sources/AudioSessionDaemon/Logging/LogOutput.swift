#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Where the daemon's log lines go: standard error, at once — but the lines the loop thread
/// logs while it reacts to an audio server event wait, and go out in one write in the loop's
/// next turn, after the server has been sent our reaction. A line written to the bench's log
/// file cost 10–35 µs on the loop (formatting and `write`), and a call that holds the music
/// logs half a dozen lines before anything it asked for is sent.
public final class LogOutput: Sendable {
    /// Standard error: the terminal, a file, or the journal's stream under systemd.
    public static let standardError = LogOutput(descriptor: 2)

    private struct Waiting {
        var thread: pthread_t?
        var bytes: [UInt8] = []
    }

    private let descriptor: Int32
    private let waiting = Mutex(Waiting())

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes `line` now, or keeps it for ``release()`` when it comes from the holding thread.
    func write(_ line: String) {
        var line = line
        let kept = waiting.withLock { waiting -> Bool in
            guard let thread = waiting.thread, pthread_equal(thread, pthread_self()) != 0 else { return false }
            waiting.bytes.append(contentsOf: line.utf8)
            return true
        }
        guard !kept else { return }
        _ = line.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0)) }  // a line that cannot be written is lost
    }

    /// The calling thread's lines wait for ``release()``; false if they already did (the
    /// caller that got true releases them).
    @discardableResult
    func hold() -> Bool {
        waiting.withLock { waiting in
            guard waiting.thread == nil else { return false }
            waiting.thread = pthread_self()
            return true
        }
    }

    /// Writes the lines that waited, in one write; from now on lines go out at once again.
    /// Safe from any thread (the daemon's stop releases what its stopped loop held).
    public func release() {
        let bytes = waiting.withLock { waiting -> [UInt8] in
            waiting.thread = nil
            defer { waiting.bytes.removeAll(keepingCapacity: true) }
            return waiting.bytes
        }
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { writeAll(descriptor, $0) }
    }
}
