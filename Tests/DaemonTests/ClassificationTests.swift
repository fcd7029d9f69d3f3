import Foundation
import PipeWireSandbox
import Testing

/// The shipped rules, applied by the real daemon to apps that set no role: classified by their
/// binary name, as users otherwise do by hand with PULSE_PROP.
@Suite("audiosessiond classifies role-less apps by the shipped rules", .serialized)
struct ClassificationTests {
    /// A copy of pw-cat under another name: PipeWire reports that name as
    /// `application.process.binary`, exactly as for the real app.
    private func app(named name: String, in sandbox: PrivatePipeWire) throws -> String {
        let path = sandbox.directory.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: "/usr/bin/pw-cat", toPath: path)
        return path
    }

    @Test func aRolelessZoomIsACallThatInterruptsARolelessSpotify() throws {
        let sandbox = try PrivatePipeWire()
        let daemon = try DaemonProcess(in: sandbox)
        try daemon.waitUntilReady()
        let tone = try sandbox.testTone()
        // `--media-role ""`: pw-cat would otherwise say Music; these apps say nothing.
        try sandbox.spawn(try app(named: "spotify", in: sandbox), ["-p", "--media-role", "", "-P", "{ node.name = music }", tone.path])
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        try daemon.waitForLog("for 'spotify': playback class media")

        let zoom = try sandbox.spawn(try app(named: "zoom", in: sandbox), ["-p", "--media-role", "", "-P", "{ node.name = meeting }", tone.path])
        try daemon.waitForLog("for 'zoom': playAndRecord/voiceChat")
        try sandbox.waitUntilLinked("meeting", to: ["headphones"])
        try sandbox.waitUntilLinked("music", to: [])  // the call interrupts the music
        zoom.terminate()
        try sandbox.waitUntilLinked("music", to: ["headphones"])  // and it comes back
        #expect(try daemon.terminate() == 0)
    }
}
