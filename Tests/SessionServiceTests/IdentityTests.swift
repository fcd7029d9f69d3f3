import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// Identity from credentials, not from what a caller says: a stream cannot join another app's
/// session by naming it; a sandboxed app (here: a process in a Flatpak app's scope, as
/// `flatpak run` puts it) is its app id whatever name it gives, so it cannot take another app's
/// record permission, and it may not change silent mode or permissions.
@Suite("Identity from credentials", .serialized)
struct IdentityTests {
    /// Sessions as ListSessions has them, by id.
    private func sessions(_ client: BusConnection) async throws -> [UInt64: [String: BusValue]] {
        let listing = try await managerCall(client, "ListSessions").first?.arrayValue ?? []
        var byID: [UInt64: [String: BusValue]] = [:]
        for entry in listing {
            guard let fields = entry.dictionaryValue, let id = fields["id"]?.uint64Value else { continue }
            byID[id] = fields
        }
        return byID
    }

    @Test func aStreamCannotJoinAnotherAppsSessionByNamingIt() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        // A VoIP app's session, held by `audiosessionctl run` (another process than this test).
        let voip = try sandbox.spawnCtl(["run", "--category", "playAndRecord", "--mode", "voiceChat", "--app", "voip", "--", "sleep", "600"])
        defer { voip.terminate() }
        let client = try sandbox.connect()
        var victim: UInt64 = 0
        try await waitUntil(timeout: .seconds(10), "the VoIP app's session exists") { () async throws -> Bool in
            victim = try await sessions(client).first { $0.value["label"]?.stringValue == "voip" }?.key ?? 0
            return victim != 0
        }
        // Another app's player names that session in its stream's properties.
        let tone = try sandbox.pipewire.testTone()
        try sandbox.pipewire.play(
            role: "Music", file: tone, extraArguments: ["-P", "{ node.name = intruder audiosession.id = \(victim) }"])
        try await waitUntil(timeout: .seconds(10), "the player is a session of its own") { () async throws -> Bool in
            let all = try await sessions(client)
            let joined = all[victim]?["streams"]?.arrayValue ?? []
            return joined.isEmpty && all.contains { $0.key != victim && !($0.value["streams"]?.arrayValue ?? []).isEmpty }
        }
    }

    /// Runs a python client that creates a session with `name` and prints `properties` of it,
    /// a `Name value` line each; in `scope` (a systemd unit's cgroup) when given, as a desktop
    /// or `flatpak run` would start it. Its lines.
    private func createSession(
        named name: String, printing properties: [String], in sandbox: ServiceSandbox, scope: FlatpakScope? = nil
    ) throws -> [String] {
        let script = sandbox.pipewire.directory.appendingPathComponent("client-\(UUID().uuidString).py")
        try """
            import dbus
            bus = dbus.SessionBus()
            manager = dbus.Interface(bus.get_object("org.audiosession.Manager1", "/org/audiosession/Manager1"), "org.audiosession.Manager1")
            path = manager.CreateSession("\(name)")
            props = dbus.Interface(bus.get_object("org.audiosession.Manager1", path), "org.freedesktop.DBus.Properties")
            for name in [\(properties.map { "\"\($0)\"" }.joined(separator: ", "))]:
                print(name, props.Get("org.audiosession.Session1", name))
            """.write(to: script, atomically: true, encoding: .utf8)
        let command = (scope.map { "echo $$ > \($0.procs) && " } ?? "") + "exec /usr/bin/python3 \(script.path)"
        let client = try sandbox.pipewire.spawn("/bin/sh", ["-c", command], extraEnvironment: sandbox.bus.environment)
        #expect(try client.waitForExit(timeout: .seconds(15)) == 0, "\(client.output)\(client.errorOutput)")
        return client.output.split(separator: "\n").map(String.init)
    }

    /// A python script that creates its session as zoom is python3: zoom's granted permission
    /// is not its, and the name it gave is only its label.
    @Test func aProcessThatClaimsAnotherAppsNameGetsItsOwnPermission() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        #expect(try sandbox.ctl(["permission", "grant", "zoom"]).status == 0)
        let lines = try createSession(named: "zoom", printing: ["App", "Label", "RecordPermission"], in: sandbox)
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().lastPathComponent
        #expect(lines.contains("App \(python)"), "its program, not the name it gave: \(lines)")
        #expect(lines.contains("Label zoom"), "\(lines)")
        #expect(lines.contains("RecordPermission undetermined"), "not zoom's grant: \(lines)")
    }

    /// A program a desktop launched in its app unit is that unit's app id, the desktop file id
    /// (`app-gnome-org.example.Softphone-<n>.scope`), whatever its binary or the name it gives;
    /// the same needs a writable cgroup tree as the Flatpak scope below.
    @Test(.enabled(if: FlatpakScope.unavailableReason == nil, Comment(rawValue: FlatpakScope.unavailableReason ?? "")))
    func aProgramADesktopLaunchedIsItsAppUnitsID() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        #expect(try sandbox.ctl(["permission", "grant", "org.example.Softphone"]).status == 0)
        let scope = try FlatpakScope(unit: "app-gnome-org.example.Softphone-\(getpid()).scope")
        defer { scope.remove() }
        let lines = try createSession(named: "zoom", printing: ["App", "RecordPermission"], in: sandbox, scope: scope)
        #expect(lines.contains("App org.example.Softphone"), "\(lines)")
        #expect(lines.contains("RecordPermission granted"), "\(lines)")
    }

    /// Skipped, with the reason printed, where no Flatpak scope can be made (no cgroup tree, or
    /// a read-only one: a container, a user without root): the daemon reads app ids from there.
    @Test(.enabled(if: FlatpakScope.unavailableReason == nil, Comment(rawValue: FlatpakScope.unavailableReason ?? "")))
    func aSandboxedAppIsItsAppIDAndChangesNoSettings() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        #expect(try sandbox.ctl(["permission", "grant", "org.example.Recorder"]).status == 0)
        let scope = try FlatpakScope(appID: "org.example.Memo")
        defer { scope.remove() }
        let script = sandbox.pipewire.directory.appendingPathComponent("sandboxed-client.py")
        try """
            import dbus
            bus = dbus.SessionBus()
            manager = dbus.Interface(bus.get_object("org.audiosession.Manager1", "/org/audiosession/Manager1"), "org.audiosession.Manager1")
            path = manager.CreateSession("org.example.Recorder")
            props = dbus.Interface(bus.get_object("org.audiosession.Manager1", path), "org.freedesktop.DBus.Properties")
            print("app", props.Get("org.audiosession.Session1", "App"))
            print("permission", props.Get("org.audiosession.Session1", "RecordPermission"))
            for name, call in [("SetRecordPermission", lambda: manager.SetRecordPermission("org.example.Memo", "granted")),
                               ("SetSilentMode", lambda: manager.SetSilentMode(True))]:
                try:
                    call()
                    print(name, "allowed")
                except dbus.exceptions.DBusException as error:
                    print(name, "refused", error.get_dbus_name())
            """.write(to: script, atomically: true, encoding: .utf8)
        // Into the app's scope first, then the client: its credentials say it is that app.
        let client = try sandbox.pipewire.spawn(
            "/bin/sh", ["-c", "echo $$ > \(scope.procs) && exec /usr/bin/python3 \(script.path)"],
            extraEnvironment: sandbox.bus.environment)
        #expect(try client.waitForExit(timeout: .seconds(15)) == 0, "\(client.output)\(client.errorOutput)")
        let lines = client.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("app org.example.Memo"), "its app id, not the name it gave: \(lines)")
        #expect(lines.contains("permission undetermined"), "not the Recorder's grant: \(lines)")
        #expect(lines.contains("SetRecordPermission refused org.audiosession.Error.MissingEntitlement"), "\(lines)")
        #expect(lines.contains("SetSilentMode refused org.audiosession.Error.MissingEntitlement"), "\(lines)")
        // Its recorder, with no session API, says it is the Recorder: its session is still its own.
        let recording = sandbox.pipewire.directory.appendingPathComponent("sneaky.wav")
        let recorder = try sandbox.pipewire.spawn(
            "/bin/sh", ["-c", "echo $$ > \(scope.procs) && exec pw-record -P '{ node.name = sneaky application.name = org.example.Recorder }' \(recording.path)"])
        defer { recorder.terminate() }
        try sandbox.pipewire.waitUntilLinked("sneaky", to: ["mic"])
        let connection = try sandbox.connect()
        try await waitUntil(timeout: .seconds(10), "the recorder's session is the Memo app's") { () async throws -> Bool in
            let listing = try await managerCall(connection, "ListSessions").first?.arrayValue ?? []
            return listing.contains { entry in
                let fields = entry.dictionaryValue ?? [:]
                return fields["kind"]?.stringValue == "implicit" && fields["app"]?.stringValue == "org.example.Memo"
            }
        }
        let remembered = try sandbox.ctl(["permission", "list"])
        #expect(remembered.status == 0 && remembered.output.contains("org.example.Recorder"), "\(remembered)")
        #expect(!remembered.output.contains("org.example.Memo"), "nothing granted to it: \(remembered.output)")
    }
}

/// A Flatpak app's systemd scope, as `flatpak run` makes one: `app-flatpak-<id>-<n>.scope` in
/// the systemd cgroup hierarchy, which is where the daemon reads a process's app id from when it
/// has no `/.flatpak-info`. Needs a writable cgroup tree (root, as CI runs).
struct FlatpakScope {
    let directory: URL
    var procs: String { directory.appendingPathComponent("cgroup.procs").path }

    /// Where scopes are made: the first hierarchy with `cgroup.procs`.
    static let hierarchy = ["/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"].first {
        FileManager.default.fileExists(atPath: "\($0)/cgroup.procs")
    }

    /// Why no scope can be made on this machine, nil when one can: found by making (and
    /// removing) an empty cgroup, the one test that a read-only mount or a missing delegation
    /// cannot pass.
    static let unavailableReason: String? = {
        guard let hierarchy else { return "no cgroup hierarchy with cgroup.procs to make a Flatpak scope in" }
        let probe = "\(hierarchy)/audiosession-tests-probe-\(getpid())"
        guard mkdir(probe, 0o755) == 0 else {
            return "cannot make a cgroup in \(hierarchy) (\(String(cString: strerror(errno)))): a Flatpak scope needs a writable cgroup tree"
        }
        rmdir(probe)
        return nil
    }()

    init(appID: String) throws {
        try self.init(unit: "app-flatpak-\(appID)-\(getpid()).scope")
    }

    /// Any unit's cgroup (a desktop's app scope too).
    init(unit: String) throws {
        guard let hierarchy = Self.hierarchy else {
            throw SandboxError.commandFailed("no cgroup hierarchy with cgroup.procs to make a Flatpak scope in")
        }
        directory = URL(fileURLWithPath: hierarchy).appendingPathComponent(unit)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        } catch {
            throw SandboxError.commandFailed("cannot make the Flatpak scope \(directory.path) (the tests need a writable cgroup tree): \(error)")
        }
    }

    /// Removes the scope once its processes are gone.
    func remove() { rmdir(directory.path) }
}
