import Foundation
import PipeWireSandbox
import Testing

/// A call is acted on when the server announces its stream: its first victim is held ahead,
/// a round-trip before the stream can be described. The stream's appearance then decides for
/// real: a stream that only looked like a call gives the music back. Read from `pw-dump`.
@Suite("A call is acted on when it is announced", .serialized)
struct CallOnSightTests {
    /// A stream whose role says call but which a rule on a property of its own (which no
    /// announcement carries) makes a media player: the music was taken off its device at the
    /// announcement (its links are new ones: other serials) and plays on, linked again.
    @Test func aStreamThatLooksLikeACallOnlyInItsAnnouncementGivesTheMusicBack() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let rules = sandbox.configDirectory.appendingPathComponent("audiosession/policy-rules.d")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try """
            audiosession.rules = [
                { matches = [ { test.preview = "yes" } ]  actions = { classify = { category = playback  class = media } } }
            ]
            """.write(to: rules.appendingPathComponent("90-preview.conf"), atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--no-bus"])
        try daemon.waitUntilReady()
        let tone = try sandbox.testTone()
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        let before = try Self.links(of: "music", in: sandbox)
        try sandbox.play(
            role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = preview  test.preview = yes }"])
        try sandbox.waitUntilLinked("preview", to: ["headphones"])
        var now: Set<String> = []
        try waitUntil(
            timeout: .seconds(10),
            "the music is linked again on new links (before \(before), now \(now), on \((try? sandbox.linkedDevices(of: "music")) ?? [])); log:\n\(daemon.log)"
        ) {
            now = try Self.links(of: "music", in: sandbox)
            let devices = try sandbox.linkedDevices(of: "music")
            return now.count == before.count && now.isDisjoint(with: before) && devices == ["headphones"]
        }
        let music = try #require(try sandbox.dump().node(named: "music"))
        try waitUntil(timeout: .seconds(5), "the music runs again (\(music.state ?? "?"))") {
            try sandbox.dump().node(named: "music")?.state == "running"
        }
        #expect(try daemon.terminate() == 0)
    }

    /// The serials of the links out of the node named `name` (a link's id is given to the
    /// next link made once it is gone; its `object.serial` never is).
    static func links(of name: String, in sandbox: PrivatePipeWire) throws -> Set<String> {
        let dump = try sandbox.dump()
        guard let node = dump.node(named: name) else { return [] }
        return Set(dump.links.filter { ($0.info["output-node-id"] as? NSNumber)?.uint32Value == node.id }.compactMap { $0.property("object.serial") })
    }
}
