import AppProcesses
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's own code, unmapped while the daemon rests.
///
/// The daemon runs code from all over its static executable (the Swift runtime's conformance
/// scans, the rules, the bus, a reaction's many small functions), and the kernel maps up to
/// 64 KiB around every page it faults in: after start-up ~11 MiB of the binary's text is
/// resident, after a few reactions ~8 MiB, in a daemon that then runs none of it for minutes.
/// `MADV_DONTNEED` on the executable segment (read-only, never written, so nothing is lost)
/// unmaps it: what runs next comes back from the page cache on its first use (minor faults),
/// and the rest is ordinary cache the kernel may reclaim, no longer pinned by a mapping.
/// Shared libraries are left alone: their pages stay cached for the other processes that map
/// them.
///
/// What runs after the `madvise` faults back in, so a release finds the segment once and
/// reads the resident size with a few lines of byte parsing, not with the standard library's
/// generic string code spread over the binary (which brought ~1.7 MiB straight back).
///
/// `.rodata` (1.9 MiB, about 1 MiB of it resident) is left mapped: the linker marked it
/// writable (one input section was), so a page of it may hold a write that unmapping would
/// lose.
enum ExecutableCode {
    /// The executable's code segment, found once: the binary does not move.
    private static let segment = executableSegment()

    /// Unmaps the executable's code segment; the process's resident bytes before and after,
    /// or nil when the segment was not found or madvise refused.
    static func release() -> (before: Int, after: Int)? {
        guard let segment, let start = UnsafeMutableRawPointer(bitPattern: segment.start) else { return nil }
        let before = residentBytes()
        guard madvise(start, segment.length, MADV_DONTNEED) == 0 else { return nil }
        return (before, residentBytes())
    }

    /// The main program's executable mapping (the `r-xp` line of `/proc/self/maps` naming the
    /// file `/proc/self/exe` points to); page-aligned, as the kernel lists it.
    private static func executableSegment() -> (start: UInt, length: Int)? {
        guard let executable = ProcessAncestry.executable(of: getpid()),
            let bytes = ProcFile.bytes("/proc/self/maps", limit: 1 << 20)
        else { return nil }
        let maps = String(decoding: bytes, as: UTF8.self)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1] == "r-xp", fields[5].drop(while: { $0 == " " }) == executable else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(String(bounds[0]), radix: 16), let end = UInt(String(bounds[1]), radix: 16),
                end > start
            else { return nil }
            return (start, Int(end - start))
        }
        return nil
    }

    /// The process's resident set: `/proc/self/statm`'s second field, in pages.
    static func residentBytes() -> Int {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer -> Int in
            let count = read(fd, buffer.baseAddress, buffer.count)
            var field = 0
            var pages = 0
            for index in 0..<max(count, 0) {
                let byte = buffer[index]
                if byte == UInt8(ascii: " ") {
                    field += 1
                    if field > 1 { break }
                } else if field == 1, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    pages = pages * 10 + Int(byte - UInt8(ascii: "0"))
                }
            }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
    }
}

/// When the daemon rests: once it is attached, whenever the audio server has sent nothing and
/// no other thread has handed the loop work (``ActivityNotingLoop``) for ``quiet``. Then
/// ``ExecutableCode`` is released, once per rest: start-up's code a moment after the first
/// attach, a burst of reactions' code a moment after the burst. No timer runs at rest: the
/// release is the last thing until the next activity.
///
/// The price is paid by the first reaction after a rest, which faults its code back in (see
/// BENCHMARKS.md for what that costs); reactions within a burst run on mapped code.
final class QuietCodeRelease: Sendable {
    /// Long enough that a burst of events (a call starting, a player's streams) is one burst,
    /// short beside the minutes a desktop's daemon rests.
    static let quiet: Duration = .seconds(1)

    private struct State {
        var attached = false
        var lastEvent = ContinuousClock.now
        var pending = false
        var releases = 0
    }

    private let loop: DaemonLoop
    private let logger: Logger
    private let state = Mutex(State())

    init(loop: DaemonLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    /// Called with every backend event, on the loop: cheap (a clock read) unless no release is
    /// pending yet. Nothing is released before the first attach.
    func saw(_ event: BackendEvent) {
        if case .attached = event { state.withLock { $0.attached = true } }
        noteActivity()
    }

    /// Called when the loop runs work another thread handed it (a D-Bus call, an MPRIS
    /// signal, a rules reload): the daemon is not at rest either.
    func noteActivity() {
        let now = ContinuousClock.now
        let arm = state.withLock { state -> Bool in
            guard state.attached else { return false }
            state.lastEvent = now
            guard !state.pending else { return false }
            state.pending = true
            return true
        }
        if arm { release(after: Self.quiet) }
    }

    /// Waits out the quiet; an event meanwhile moves the deadline instead of adding a timer.
    private func release(after delay: Duration) {
        _ = loop.schedule(after: delay) { [self] in
            let now = ContinuousClock.now
            let (wait, count) = state.withLock { state -> (Duration?, Int) in
                let since = now - state.lastEvent
                if since < Self.quiet { return (Self.quiet - since, state.releases) }
                state.pending = false
                state.releases += 1
                return (nil, state.releases)
            }
            if let wait { return release(after: wait) }
            guard let resident = ExecutableCode.release() else {
                return logger.debug("code left mapped: the executable's segment was not found")
            }
            if count == 1 {
                logger.info("code unmapped at rest: resident \(resident.before / 1024) → \(resident.after / 1024) KiB")
            } else {
                logger.debug("code unmapped at rest (\(count) times): resident \(resident.before / 1024) → \(resident.after / 1024) KiB")
            }
            // Formatting and writing that line ran code from all over the binary (string
            // interpolation, the log handler): 1.3 MiB of it came straight back and stayed, on
            // PipeWire 1.4.2 where the first release is also the last of start-up.
            _ = ExecutableCode.release()
        }
    }
}
