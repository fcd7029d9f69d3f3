#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Tells when a rules file may have changed: inotify on every rule directory (and, for a
/// directory that does not exist yet, on its nearest existing parent, so creating
/// `~/.config/audiosession/policy-rules.d` is noticed too).
///
/// Only events that can change the rule set count: a `*.conf` file of a rule directory,
/// the directory itself, or (in an ancestor) the next directory on the way to a missing
/// rule directory; `~/.config` churn from other programs is ignored. Editors save in
/// bursts (write a temporary file, rename, chmod); events arriving within `settleTime` of
/// each other are reported as one change. The daemon reacts by calling
/// `LiveRules.reload()`, which validates the whole set before swapping it in.
///
/// The watching thread blocks in `poll` with no timeout while nothing is pending (a timeout
/// only while a burst settles), so an idle watcher never wakes up.
public final class RulesWatcher: Sendable {
    /// One report per burst of file-system events (empty and finished at once when the
    /// watcher was made with `onChange`).
    public let changes: AsyncStream<Void>

    private let inotify: Int32
    /// Written to by `stop()` to wake the watching thread.
    private let wakeup: (read: Int32, write: Int32)
    private let directories: [String]
    private let settleTime: Duration
    private let continuation: AsyncStream<Void>.Continuation
    /// Called on the watching thread once per burst, instead of `changes`.
    private let onChange: (@Sendable () -> Void)?
    private let stopped = Atomic<Bool>(false)
    /// What each inotify watch descriptor is for. Written by `addWatches` (in `init`, then
    /// only on the watching thread); the lock makes that hand-over explicit.
    private let scopes = Mutex<[Int32: WatchScope]>([:])

    /// Starts watching; reports arrive on `changes`. Throws the `errno` of `inotify_init1` or `pipe`.
    public convenience init(directories: [String], settleTime: Duration = .milliseconds(100)) throws(WatchError) {
        try self.init(directories: directories, settleTime: settleTime, callback: nil)
    }

    /// Starts watching and calls `onChange` on the watching thread once per burst: no task or
    /// queue in between, so a daemon reacting this way starts no thread pool of its own.
    public convenience init(
        directories: [String], settleTime: Duration = .milliseconds(100), onChange: @escaping @Sendable () -> Void
    ) throws(WatchError) {
        try self.init(directories: directories, settleTime: settleTime, callback: onChange)
    }

    private init(directories: [String], settleTime: Duration, callback: (@Sendable () -> Void)?) throws(WatchError) {
        self.directories = directories
        self.settleTime = settleTime
        self.onChange = callback
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { throw WatchError(operation: "inotify_init1", errno: errno) }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            close(descriptor)
            throw WatchError(operation: "pipe", errno: code)
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        inotify = descriptor
        wakeup = (pipeEnds[0], pipeEnds[1])
        (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        if callback != nil { continuation.finish() }
        addWatches()
        startThread()
    }

    /// A plain pthread named `rules-watcher`, holding the watcher until `run()` returns.
    /// (Foundation's `Thread` would link all of Foundation, and ICU, into the daemon.)
    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { context in
                let watcher = Unmanaged<RulesWatcher>.fromOpaque(context!).takeRetainedValue()
                nameCurrentThread("rules-watcher")
                var signals = sigset_t()  // signals are for the thread that waits for them
                sigfillset(&signals)
                pthread_sigmask(SIG_BLOCK, &signals, nil)
                watcher.run()
                return nil
            }, context)
        guard created == 0 else {
            Unmanaged<RulesWatcher>.fromOpaque(context).release()
            fatalError("pthread_create failed (\(created))")
        }
        pthread_detach(thread)
    }

    /// Stops watching and finishes `changes`. Safe to call more than once; the watching
    /// thread holds the watcher until then.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeup.write, &byte, 1)
    }

    /// Watch each directory, or the nearest existing ancestor of a missing one. Watches of
    /// removed directories die by themselves; the table is rebuilt from scratch each time.
    private func addWatches() {
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO
            | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
        var table: [Int32: WatchScope] = [:]
        for directory in directories {
            var path = directory
            var child: String?
            while !path.isEmpty {
                let descriptor = inotify_add_watch(inotify, path, mask)
                if descriptor >= 0 {
                    var scope = table[descriptor] ?? WatchScope()
                    if let child { scope.children.insert(child) } else { scope.isRulesDirectory = true }
                    table[descriptor] = scope
                    break
                }
                guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { break }
                child = String(path[path.index(after: slash)...])
                path = String(path[..<slash])
            }
        }
        scopes.withLock { $0 = table }
    }

    /// Runs until `stop()` writes its wake-up byte. The wake-up pipe is closed only after
    /// that byte arrived, so `stop()` never writes to a closed (or reused) descriptor.
    private func run() {
        let woken = watchUntilWoken()
        continuation.finish()
        close(inotify)
        if woken {
            close(wakeup.read)
            close(wakeup.write)
        }
    }

    private func watchUntilWoken() -> Bool {
        let settleMilliseconds = Int32(settleTime.components.seconds * 1000 + settleTime.components.attoseconds / 1_000_000_000_000_000)
        var pending = false
        while true {
            var descriptors = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wakeup.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, pending ? settleMilliseconds : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            if descriptors[1].revents != 0 { return true }
            if ready == 0 {
                // Quiet for `settleTime` after a burst: report it once.
                pending = false
                addWatches()
                if let onChange { onChange() } else { continuation.yield() }
                continue
            }
            if descriptors[0].revents != 0 && drain() {
                pending = true
            }
        }
    }

    /// Reads every pending event; true when one of them can change the rule set.
    private func drain() -> Bool {
        var relevant = false
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = read(inotify, &buffer, buffer.count)
            guard count > 0 else { return relevant }
            let table = scopes.withLock { $0 }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[len]; }
                while offset + 16 <= count {
                    let descriptor = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = bytes[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        relevant = true
                    } else if let scope = table[descriptor], scope.isRelevant(name: name) {
                        relevant = true
                    }
                    offset += 16 + length
                }
            }
        }
    }
}

/// What one watched directory is watched for.
struct WatchScope: Hashable, Sendable {
    /// It is a rule directory: its `*.conf` files matter.
    var isRulesDirectory = false
    /// It is the nearest existing ancestor of missing rule directories: the creation (or
    /// removal) of these children matters.
    var children: Set<String> = []

    /// Whether an event about `name` (empty: the directory itself) can change the rules.
    func isRelevant(name: String) -> Bool {
        if name.isEmpty { return true }
        if children.contains(name) { return true }
        return isRulesDirectory && name.hasSuffix(".conf") && !name.hasPrefix(".")
    }
}

/// A system call the watcher needs failed.
public struct WatchError: Error, Hashable, Sendable, CustomStringConvertible {
    public var operation: String
    public var errno: Int32
    public var description: String { "\(operation): \(String(cString: strerror(errno)))" }
}

/// Names the calling thread (its `comm`, as ps, top and /proc show it; a new thread otherwise
/// inherits its creator's name). Through /proc/thread-self: Glibc's Swift module leaves out
/// pthread_setname_np, a GNU extension.
private func nameCurrentThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = name.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, min(15, $0.count - 1)) }
    close(descriptor)
}
