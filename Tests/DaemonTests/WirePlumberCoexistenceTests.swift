import Foundation
import PipeWireSandbox
import Testing

/// The usual desktop: WirePlumber 0.4 links streams and manages devices (with the coexistence
/// file from contrib/wireplumber), audiosessiond --no-linking applies the session policy.
@Suite("audiosessiond beside WirePlumber", .serialized)
struct WirePlumberCoexistenceTests {
    @Test func wirePlumberLinksAndTheDaemonDucksAndSilences() throws {
        let sandbox = try PrivatePipeWire()
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        // WirePlumber reads the coexistence file from its user config dir.
        let config = sandbox.directory.appendingPathComponent("wp-config")
        let policy = config.appendingPathComponent("wireplumber/policy.lua.d")
        try FileManager.default.createDirectory(at: policy, withIntermediateDirectories: true)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        try FileManager.default.copyItem(
            at: repository.appendingPathComponent("contrib/wireplumber/policy.lua.d/90-audiosession.lua"),
            to: policy.appendingPathComponent("90-audiosession.lua"))
        let wireplumber = try sandbox.spawn(
            "wireplumber", [], extraEnvironment: bus.environment.merging(["XDG_CONFIG_HOME": config.path]) { $1 })
        try waitUntil(timeout: .seconds(15), "WirePlumber provides the default metadata") {
            guard wireplumber.isRunning else { throw SandboxError.notRunning("wireplumber: \(wireplumber.errorOutput)") }
            return try sandbox.dump().metadataValue("default", key: "default.audio.sink") != nil
        }
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--no-linking", "--no-bus"])
        try daemon.waitForLog("not linking (--no-linking)")
        let watcher = try VolumeWatcher(sandbox)
        let tone = try sandbox.testTone()

        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        var sink = Set<String>()
        try waitUntil(timeout: .seconds(10), "WirePlumber links the music") {
            sink = try sandbox.linkedDevices(of: "music")
            return !sink.isEmpty
        }
        // A notification ducks the music; WirePlumber's links stay as they are.
        let chime = try sandbox.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime }"])
        try watcher.waitForVolume(of: "music", 0.3)
        #expect(try sandbox.linkedDevices(of: "music") == sink)
        chime.terminate()
        try watcher.waitForVolume(of: "music", 1.0)

        // A call silences it by policy mute (the links are WirePlumber's, not ours to remove) ...
        let call = try sandbox.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
        try waitUntil(timeout: .seconds(5), "music is muted by policy") { watcher.node("music")?.props?.mute == true }
        #expect(try sandbox.linkedDevices(of: "music") == sink)
        // ... and lifts it when the call ends.
        call.terminate()
        try waitUntil(timeout: .seconds(5), "music is unmuted") { watcher.node("music")?.props?.mute == false }
        #expect(!daemon.log.contains("linking playback stream"), "the daemon linked nothing")
        #expect(try daemon.terminate() == 0)
    }
}
