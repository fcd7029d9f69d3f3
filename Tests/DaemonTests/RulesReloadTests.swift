import Foundation
import PipeWireSandbox
import Testing

/// Rules are tuned under a running daemon: a valid edit re-classifies playing streams, a broken
/// one is reported and changes nothing, and a daemon never starts on broken rules.
@Suite("audiosessiond policy rules, live", .serialized)
struct RulesReloadTests {
    @Test func editingARulesFileReclassifiesAPlayingStreamAndABrokenEditChangesNothing() throws {
        let sandbox = try PrivatePipeWire()
        let rules = sandbox.directory.appendingPathComponent("rules.d")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--rules", rules.path], environment: bus.environment)
        try daemon.waitUntilReady()
        let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
        let watcher = try VolumeWatcher(sandbox)
        let tone = try sandbox.testTone()
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime }"])
        try watcher.waitForVolume(of: "music", 0.3)

        // "Notifications no longer duck": the chime's session is re-classified, the duck ends.
        try """
            audiosession.rules = [
                { matches = [ { media.role = "Notification" } ]
                  actions = { classify = { category = playback  options = [ mixWithOthers ]  class = media } } }
            ]
            """.write(to: rules.appendingPathComponent("50-quiet.conf"), atomically: true, encoding: .utf8)
        try waitUntil(timeout: .seconds(10), "the chime's session is re-classified (sessions: \((try? oracle.sessions().map(\.summary)) ?? [])); log:\n\(daemon.log)") {
            let chime = try sandbox.dump().node(named: "chime")?.id
            let session = try oracle.sessions().first { chime.map($0.streams.contains) == true }
            return session?.category == "playback" && session?.priorityClass == "media"
        }
        try watcher.waitForVolume(of: "music", 1.0)

        // A broken edit: reported with file and line, the previous rules stay in force.
        try "audiosession.rules = [ { matches = [ { media.role = \"Notification\" } ]\n actions = { classify = { category = loud } } } ]\n"
            .write(to: rules.appendingPathComponent("60-broken.conf"), atomically: true, encoding: .utf8)
        try waitUntil(timeout: .seconds(10), "status says the edit failed, naming file and line (now \((try? oracle.rules())?.description ?? "no status"))") {
            let rules = try oracle.rules()
            return rules.outcome == "failed" && rules.reason == "a rules file changed" && rules.error.contains("60-broken.conf:2")
        }
        #expect(try oracle.rules().files.contains { $0.hasSuffix("50-quiet.conf") }, "the edited rules stay in force")
        let status = try oracle.ctl(["status"])
        #expect(status.contains("last read (a rules file changed): failed, the previous rules stay: ") && status.contains("60-broken.conf:2"),
                "status tells the user: \(status)")
        // Still the edited rules: a new notification does not duck the music either.
        try sandbox.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime2 }"])
        try sandbox.waitUntilLinked("chime2", to: ["headphones"])
        _ = try sandbox.run("pw-cli", ["ls", "Node"])
        #expect(watcher.volume(of: "music") == 1.0)
        #expect(try daemon.terminate() == 0)
    }

    @Test func theDaemonDoesNotStartOnBrokenRules() throws {
        let sandbox = try PrivatePipeWire()
        let rules = sandbox.directory.appendingPathComponent("rules.d")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try "audiosession.settings = { duck.level = 7 }\n"
            .write(to: rules.appendingPathComponent("10-bad.conf"), atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--rules", rules.path])
        let status = try daemon.process.waitForExit(timeout: .seconds(10))
        #expect(status == 2)
        #expect(daemon.log.contains("10-bad.conf:1"), "\(daemon.log)")
        #expect(daemon.log.contains("policy rules are invalid"))
    }
}
