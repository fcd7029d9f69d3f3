#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// SIGINT and SIGTERM end the daemon, SIGHUP reloads its rules: read synchronously with
/// `sigwaitinfo` on the thread that runs the daemon, so waiting for them costs no thread, no
/// timer and no wake-up (libdispatch signal sources needed its manager thread).
///
/// The signals are blocked first, before the daemon starts any thread: threads inherit the
/// mask, so none of them can take a signal meant for `wait`, and PipeWire's loop never sees one.
/// (A child process would inherit the mask too; the daemon starts none.)
enum TerminationSignal {
    private static let numbers: [(Int32, String)] = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")]

    /// Blocks the three signals in the calling thread and every thread it starts afterwards,
    /// and ignores SIGPIPE: a write to a socket or pipe whose other end went (a bus, a server)
    /// is an error its caller handles, never a silent death. systemd ignores it for services;
    /// a daemon run from a shell or a test would otherwise die of it without a word.
    static func block() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Blocks the calling thread until SIGINT or SIGTERM arrives, calling `onHangUp` (on this
    /// thread) for each SIGHUP. Call `block()` first.
    static func wait(onHangUp: () -> Void) -> String {
        var set = signalSet()
        while true {
            let number = sigwaitinfo(&set, nil)
            if number == SIGHUP {
                onHangUp()
            } else if let label = numbers.first(where: { $0.0 == number })?.1 {
                return label
            }
            // -1: EINTR (a stop/continue); anything else is not in the set
        }
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for (number, _) in numbers { sigaddset(&set, number) }
        return set
    }
}
