import AppProcesses
import Foundation
import Testing

@testable import AudioSessionDaemon

/// What the daemon reads of a process in `/proc` (its parent, its start time, its files),
/// read with plain system calls on the path of every new stream.
@Suite("Process facts from /proc")
struct ProcessFactsTests {
    @Test func aProcessHasItsParentAndAStartTime() throws {
        let own = try #require(ProcessAncestry.status(of: getpid()))
        #expect(own.parent == getppid())
        #expect(own.startTime > 0)
        #expect(ProcessAncestry.chain(from: getpid()).first == getpid())
    }

    @Test func aCommandNameWithParenthesesAndSpacesDoesNotConfuseTheFields() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("procfacts-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let oddName = directory.appendingPathComponent("a) 1 2 (b")
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: oddName.path)
        let child = Process()
        child.executableURL = oddName
        child.arguments = ["30"]
        try child.run()
        defer {
            kill(child.processIdentifier, SIGKILL)  // SIGTERM may be blocked: children inherit the mask
            child.waitUntilExit()
        }
        let status = try #require(ProcessAncestry.status(of: child.processIdentifier))
        #expect(status.parent == getpid(), "the parent read past the name '\(oddName.lastPathComponent)'")
        #expect(try #require(ProcessAncestry.status(of: getpid())).startTime <= status.startTime)
    }

    @Test func aCallerWithoutAnAppNameIsNamedByItsProcess() throws {
        let comm = try String(contentsOfFile: "/proc/self/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(SessionService.processName(of: UInt32(getpid())) == comm)
        #expect(SessionService.processName(of: 4_000_000_000) == "pid-4000000000", "no such process")
    }

    @Test func aMissingFileIsNilAndAPresentOneIsRead() {
        #expect(ProcFile.text("/proc/\(getpid())/root/.flatpak-info-that-is-not-there") == nil)
        #expect(ProcFile.text("/proc/self/cmdline")?.isEmpty == false)
        #expect(FlatpakAppID.of(getpid()) == nil, "a test run is in no Flatpak sandbox")
    }
}
