import AppProcesses
import Foundation
import PipeWireSandbox
import Testing

/// What keeps an idle daemon idle (no periodic wake-ups, a small RSS), checked on the
/// real binary with the session bus API, MPRIS and a playing stream: no libdispatch thread
/// (its pool monitor ticks once a second forever once a pool thread exists), no full
/// Foundation, ICU or libpulse mapped, and the signals it waits for with `sigwaitinfo` still work.
/// The wake-up and RSS numbers themselves are measured by scripts/idle-cost.sh and `make bench`.
@Suite("audiosessiond at rest", .serialized)
struct IdleDaemonTests {
    @Test func aBusyStartLeavesNoLibdispatchThreadAndSignalsStillWork() throws {
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose"], environment: bus.environment)
        try daemon.waitUntilReady()
        let tone = try sandbox.testTone()
        _ = try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["headphones"])

        let pid = daemon.process.pid
        let threads = try threadNames(of: pid)
        #expect(threads.contains("swift-tasks"), "Swift tasks run on the daemon's own thread: \(threads)")
        let dispatchThreads = threads.filter { $0.contains("qos") || $0.hasPrefix("com.apple") || $0.contains("dispatch") }
        #expect(dispatchThreads.isEmpty, "libdispatch threads: \(threads)")
        let maps = try #require(ProcFile.text("/proc/\(pid)/maps", limit: 1 << 20))
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!maps.contains(library), "\(library) is mapped")
        }
        // libpulse is loaded only to attach to a PulseAudio server: on PipeWire neither it nor
        // the libraries it pulls in (libsndfile, codecs, X11) are mapped.
        for library in ["libpulse.so", "libpulsecommon", "libsndfile.so", "libX11.so"] {
            #expect(!maps.contains(library), "\(library) is mapped")
        }

        let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
        for reads in 2...3 {
            kill(pid, SIGHUP)
            try waitUntil(timeout: .seconds(10), "the daemon read its rules again on SIGHUP (now \((try? oracle.rules())?.description ?? "no status"))") {
                let rules = try oracle.rules()
                return rules.reads == reads && rules.reason == "SIGHUP" && rules.outcome == "unchanged"
            }
        }
        kill(pid, SIGINT)
        #expect(try daemon.process.waitForExit(timeout: .seconds(5)) == 0, "SIGINT is a shutdown, not a death (130)")
    }

    /// The daemon's code is unmapped a second after the first attach (QuietCodeRelease), with
    /// the code that logging it ran; what it runs afterwards comes back from the page cache (a
    /// stream played later is linked), and that code is unmapped again once the graph has been
    /// quiet for a second.
    @Test func codeIsUnmappedAtRestAndWhatRunsLaterComesBack() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--no-bus"])
        try daemon.waitUntilReady()
        let pid = daemon.process.pid
        let before = try ResidentCode.kibibytes(of: pid)
        var released = before
        try waitUntil(timeout: .seconds(10), "the code is unmapped at rest (resident \(before) KiB at attach, now \(released))") {
            released = try ResidentCode.kibibytes(of: pid)
            return released < before / 10
        }
        // A tenth, not a half: the release's own log line (string interpolation, the log
        // handler) ran code that stayed resident (700–830 KiB here, 1.3 MiB of the release
        // build on PipeWire 1.4.2) until the release was made again after it.
        #expect(released < before / 10, "resident code \(before) KiB at attach, \(released) KiB after the release and its log line")

        let tone = try sandbox.testTone()
        _ = try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        let reacted = try ResidentCode.kibibytes(of: pid)
        #expect(reacted > released, "the reaction's code came back: \(released) → \(reacted) KiB")
        try ResidentCode.waitUntilReleased(from: reacted, of: pid, timeout: .seconds(10), "the reaction's code")
        kill(pid, SIGTERM)
        #expect(try daemon.process.waitForExit(timeout: .seconds(5)) == 0)
    }

    private func threadNames(of pid: Int32) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").map { tid in
            try String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
