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
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let daemon = try DaemonProcess(in: sandbox, environment: bus.environment)
        try daemon.waitUntilReady()
        let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
        /// The session of `process`, once it is classified as `category` (`status --json`).
        func waitForSession(of process: ManagedProcess, _ category: String) throws -> SessionOracle.Session {
            var session: SessionOracle.Session?
            try waitUntil(timeout: .seconds(10), "pid \(process.pid) is \(category) (now \(session?.summary ?? "no session"))") {
                session = try oracle.session(ofProcess: process.pid)
                return session?.category == category
            }
            return session!
        }
        let tone = try sandbox.testTone()
        // `--media-role ""`: pw-cat would otherwise say Music; these apps say nothing.
        let spotify = try sandbox.spawn(try app(named: "spotify", in: sandbox), ["-p", "--media-role", "", "-P", "{ node.name = music }", tone.path])
        try sandbox.waitUntilLinked("music", to: ["headphones"])
        let music = try waitForSession(of: spotify, "playback")
        #expect(music.priorityClass == "media" && music.classifiedBy.hasPrefix("rules"), "\(music.summary)")

        let zoom = try sandbox.spawn(try app(named: "zoom", in: sandbox), ["-p", "--media-role", "", "-P", "{ node.name = meeting }", tone.path])
        let meeting = try waitForSession(of: zoom, "playAndRecord")
        #expect(meeting.mode == "voiceChat", "\(meeting.summary)")
        try sandbox.waitUntilLinked("meeting", to: ["headphones"])
        try sandbox.waitUntilLinked("music", to: [])  // the call interrupts the music
        zoom.terminate()
        try sandbox.waitUntilLinked("music", to: ["headphones"])  // and it comes back
        #expect(try daemon.terminate() == 0)
    }
}
