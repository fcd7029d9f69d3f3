import AppProcesses
import Foundation
import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// What the daemon reads of a process in `/proc` (its parent, its start time, its files),
/// read with plain system calls on the path of a new stream, once per connection.
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

    @Test func aConnectionsProcessIsReadOnceAndAnotherConnectionsIsCheckedAgain() {
        var reads = 0
        var reader = AppFactsReader { pid in
            reads += 1
            return ProcessAncestry.status(of: pid)
        }
        func stream(_ node: UInt32, connection: UInt64?) -> BackendStream {
            BackendStream(
                id: StreamID(.playback, node), client: 40, connectionSerial: connection, properties: [:], activity: .idle,
                appName: "softphone", processID: getpid())
        }
        let first = reader.facts(for: stream(70, connection: 7))
        #expect(first.lineage.first?.pid == getpid())
        #expect(reader.facts(for: stream(71, connection: 7)) == first)
        #expect(reads == 1, "a connection's next stream is the same process: no read")
        #expect(reader.facts(for: stream(72, connection: 8)) == first)
        #expect(reads == 2, "a pid on another connection may be another process: read again")
        _ = reader.facts(for: stream(73, connection: nil))
        _ = reader.facts(for: stream(74, connection: nil))
        #expect(reads == 4, "without a connection serial every stream is checked")
        reader.forgetAll()
        _ = reader.facts(for: stream(75, connection: 7))
        #expect(reads == 5, "after the server came back, connections are new")
    }

    @Test func aMissingFileIsNilAndAPresentOneIsRead() {
        #expect(ProcFile.text("/proc/\(getpid())/root/.flatpak-info-that-is-not-there") == nil)
        #expect(ProcFile.text("/proc/self/cmdline")?.isEmpty == false)
        #expect(FlatpakAppID.of(getpid()) == nil, "a test run is in no Flatpak sandbox")
    }
}

/// The app id a desktop's systemd unit vouches for (systemd's desktop-environment conventions).
@Suite("App units")
struct AppScopeTests {
    @Test(arguments: [
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Terminal-4242.scope\n", "org.gnome.Terminal"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.kde.dolphin@a1b2.service\n", "org.kde.dolphin"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox\\x2desr-77.scope\n", "firefox-esr"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox\\x2desr-77.scope\n", "firefox-esr"),
        ("1:name=systemd:/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.Softphone-9.scope\n0::/\n", "org.example.Softphone"),
    ])
    func anAppUnitIsItsDesktopFileID(cgroup: String, id: String) {
        #expect(AppScope.applicationID(inCgroup: cgroup) == id)
    }

    @Test(arguments: [
        "0::/user.slice/user-1000.slice/session-2.scope\n",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.example.App-5.scope\n",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/dbus-:1.2-org.freedesktop.portal.Desktop@0.service\n",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/vte-spawn-1b2c.scope\n",
        "0::/\n",
    ])
    func otherUnitsVouchForNoApp(cgroup: String) {
        #expect(AppScope.applicationID(inCgroup: cgroup) == nil)
    }
}
