import AppProcesses
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's own code that only starting up ran, unmapped once it is attached and quiet.
///
/// Starting touches code all over the executable (the Swift runtime's conformance scans, the
/// rules reader, argument parsing, the bus's first calls), and the kernel maps up to 64 KiB
/// around every page it faults in: ~11 MiB of the static binary's text stays resident in an
/// idle daemon that runs little of it. `MADV_DONTNEED` on the executable segment (read-only,
/// never written, so nothing is lost) unmaps it: the code the daemon runs again comes back
/// from the page cache on its first use (minor faults), and the rest is ordinary cache the
/// kernel may reclaim, no longer pinned by a mapping. Shared libraries are left alone: their
/// pages stay cached for the other processes that map them.
enum StartupCode {
    /// Unmaps the executable's code segment; the process's resident bytes before and after,
    /// or nil when the segment was not found or madvise refused.
    static func release() -> (before: Int, after: Int)? {
        guard let segment = executableSegment() else { return nil }
        let before = residentBytes()
        guard madvise(segment.start, segment.length, MADV_DONTNEED) == 0 else { return nil }
        return (before, residentBytes())
    }

    /// The main program's executable mappings (`r-xp` lines of `/proc/self/maps` naming the
    /// file `/proc/self/exe` points to); page-aligned, as the kernel lists them.
    private static func executableSegment() -> (start: UnsafeMutableRawPointer, length: Int)? {
        guard let executable = ProcessAncestry.executable(of: getpid()),
            let bytes = ProcFile.bytes("/proc/self/maps", limit: 1 << 20)
        else { return nil }
        let maps = String(decoding: bytes, as: UTF8.self)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1] == "r-xp", fields[5].drop(while: { $0 == " " }) == executable else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(String(bounds[0]), radix: 16), let end = UInt(String(bounds[1]), radix: 16),
                end > start,
                let pointer = UnsafeMutableRawPointer(bitPattern: start)
            else { return nil }
            return (pointer, Int(end - start))
        }
        return nil
    }

    /// The process's resident set (`/proc/self/statm`'s second field, in pages).
    private static func residentBytes() -> Int {
        let fields = ProcFile.text("/proc/self/statm")?.split(separator: " ") ?? []
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// When start-up is over: a while after the first attach to the server, when the bus and the
/// MPRIS players have answered too. Then ``StartupCode`` is released, once.
final class StartupRelease: Sendable {
    /// Long enough for the bus's and MPRIS's first round-trips, short beside a daemon's life.
    static let settle: Duration = .seconds(1)

    private let loop: DaemonLoop
    private let logger: Logger
    private let scheduled = Atomic<Bool>(false)

    init(loop: DaemonLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    /// Called with every backend event, on the loop.
    func saw(_ event: BackendEvent) {
        guard case .attached = event, !scheduled.exchange(true, ordering: .relaxed) else { return }
        let logger = self.logger
        _ = loop.schedule(after: Self.settle) {
            guard let resident = StartupCode.release() else {
                return logger.debug("start-up code left mapped: its segment was not found")
            }
            logger.info("start-up code unmapped: resident \(resident.before / 1024) → \(resident.after / 1024) KiB")
        }
    }
}
