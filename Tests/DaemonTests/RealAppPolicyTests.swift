import Foundation
import PipeWireSandbox
import Testing

/// The policy for programs as they really are — no role, late properties, several clients —
/// with the real daemon on a private PipeWire (with pipewire-pulse) and session bus. Each test
/// names the finding it pins; the daemon's verdict is read with `audiosessionctl status --json`
/// and the audio with `pw-dump` / `pw-link`.
@Suite("Real apps: what the daemon makes of programs that set no role", .serialized)
struct RealAppPolicyTests {
    typealias Rig = MPRISInterruptionTests.Rig

    static func oracle(_ rig: Rig) -> SessionOracle { SessionOracle(sandbox: rig.sandbox, busAddress: rig.bus.address) }

    /// Recorders that say nothing about themselves (pw-record says Music) used to be
    /// "capture silenced": their volume went to 0 and they recorded silence.
    /// A recorder of what plays (a sink's monitor) mixes with everything: recording the output
    /// must not change it.
    @Test(arguments: [
        ("pw-record", ["--target", "mic"], "record", "recording"),
        ("parecord", ["--device=mic"], "record", "recording"),
        ("parecord", ["--device=headphones.monitor"], "playAndRecord", "monitoring"),
    ])
    func aRecorderWithNoRoleRecordsAndIsNeverSilenced(
        program: String, arguments: [String], category: String, reason: String
    ) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let oracle = Self.oracle(rig)
        try rig.sandbox.play(role: "Music", file: rig.tone, extraArguments: ["-P", "{ node.name = music }"])
        try await rig.waitUntilLinked("music", to: ["headphones"])
        let output = rig.sandbox.directory.appendingPathComponent("\(program).wav").path
        let recorder = try rig.sandbox.spawn(program, arguments + [output])
        var session: SessionOracle.Session?
        try await eventually("\(program)'s session records; log:\n\(rig.log)") {
            session = try oracle.session(ofProcess: recorder.pid)
            return session?.category == category && session?.activity == "active"
        }
        #expect(session?.classifiedBy == reason)
        #expect(session?.captureSilenced == false)
        // Nothing wrote the microphone stream's volume: it is the app's own 1.0, unmuted.
        let streamID = try #require(session?.streams.first)
        let node = try #require(try rig.sandbox.dump().nodes.first { $0.id == streamID })
        #expect(node.volume == 1.0 && node.mute == false, "\(node.props ?? [:])")
        #expect(!rig.log.contains("capture silenced"))
        // Recording mixes with the music on the desktop.
        #expect(try rig.sandbox.linkedDevices(of: "music") == ["headphones"])
    }

    /// mpv's native node used to be classified once, when it appeared, sometimes before its
    /// role arrived: its session stayed soloAmbient for its whole life in 3 of 8 starts.
    @Test func mpvIsClassifiedTheSameOnTwentyStartsInARow() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let oracle = Self.oracle(rig)
        var seen: [String] = []
        for _ in 1...20 {
            let mpv = try rig.sandbox.spawn(
                "mpv", ["--no-config", "--no-video", "--ao=pipewire", "--loop-file=inf", "--no-terminal", rig.tone.path])
            var session: SessionOracle.Session?
            try await eventually("mpv (pid \(mpv.pid)) has an active session; log:\n\(rig.log)") {
                session = try oracle.session(ofProcess: mpv.pid)
                return session?.activity == "active"
            }
            seen.append(session.map { "\($0.category)/\($0.mode) \($0.priorityClass)" } ?? "none")
            mpv.terminate()
            try await eventually("mpv's session is gone") { try oracle.session(ofProcess: mpv.pid) == nil }
        }
        #expect(Set(seen) == ["playback/default media"], "\(seen)")
    }
}

/// `waitUntil` that suspends between polls.
func eventually(_ description: String, timeout: Duration = .seconds(10), _ condition: () throws -> Bool) async throws {
    try await waitUntil(timeout: timeout, description) { () async throws -> Bool in try condition() }
}
