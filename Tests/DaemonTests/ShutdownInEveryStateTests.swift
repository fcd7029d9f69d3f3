import Foundation
import PipeWireSandbox
import Testing

/// SIGTERM in the middle of what the daemon does, beside WirePlumber (the usual desktop):
/// it exits 0 within systemd's `TimeoutStopSec=5`, and what it changed is undone, read
/// from the server (`pw-dump`). A daemon that hangs at exit is killed by systemd and leaves
/// its ducks and mutes on until its next start.
///
/// Each state is stopped `AUDIOSESSION_TEST_SHUTDOWN_STOPS` times (default 3, enough for CI;
/// a hunt for a race runs 20 or more), each time in a fresh sandbox.
@Suite("audiosessiond stops cleanly in every state", .serialized)
struct ShutdownInEveryStateTests {
    /// Where the daemon is when SIGTERM comes.
    enum Moment: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// A notification plays and the music's duck ramp has begun.
        case midDuck
        /// A call plays and the music is muted by policy.
        case midCall
        /// The music's device went away; WirePlumber moved it and the daemon paused it by mute.
        case midUnplug
        /// The music's device is being destroyed: WirePlumber moves the stream while the
        /// daemon reacts, the server's events arriving as it stops.
        case whileWirePlumberMovesTheMusic
        /// Short streams start and end one after another: the server's events and the
        /// daemon's timers keep coming as it stops.
        case whileStreamsComeAndGo

        var testDescription: String { rawValue }
    }

    /// How many times each state is stopped.
    static let stops = max(1, Int(ProcessInfo.processInfo.environment["AUDIOSESSION_TEST_SHUTDOWN_STOPS"] ?? "") ?? 3)
    /// systemd's `TimeoutStopSec` in the shipped unit: later than this, the daemon is killed
    /// (times `AUDIOSESSION_TEST_TIME_SCALE`, as every wait).
    static let exitBound = Duration.seconds(5)

    let coexistence = WirePlumberCoexistenceTests()

    @Test(arguments: Moment.allCases)
    func sigtermExitsInTimeAndUndoesEverything(at moment: Moment) throws {
        var worst = Duration.zero
        for stop in 1...Self.stops {
            let took = try stopOnce(at: moment, attempt: stop)
            worst = max(worst, took)
        }
        let stack = ProcessInfo.processInfo.environment["AUDIOSESSION_TEST_STACK"] ?? "debian"
        print(
            "shutdown \(moment.rawValue) on the \(stack) stack: \(Self.stops) stops, every one exited 0 and undid everything; slowest exit \(worst.formatted(.units(allowed: [.milliseconds])))"
        )
    }

    /// One daemon, brought to `moment`, stopped; returns how long it took to exit.
    private func stopOnce(at moment: Moment, attempt: Int) throws -> Duration {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        try coexistence.startWirePlumber(in: sandbox)
        // On the backport the daemon runs on its libpipewire too (the other tests give it
        // Debian's 0.3.65 client library): the loop's stop is the client library's.
        let libraries = sandbox.installation?.environment(configuration: sandbox.serverConfigurationDirectory) ?? [:]
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--no-bus"], environment: libraries)
        // Attached before the moment is brought about: a duck, a call or an unplug needs the policy there.
        try daemon.waitUntilReady()
        let watcher = try VolumeWatcher(sandbox)
        let tone = try sandbox.testTone()
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        let device = try coexistence.waitUntilLinkedByWirePlumber("music", in: sandbox)
        let short = Duration.seconds(5)
        var churn: ManagedProcess?
        defer { churn?.terminate() }
        switch moment {
        case .midDuck:
            try sandbox.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime }"])
            try waitUntil(
                timeout: short, poll: .milliseconds(1),
                "the music's duck begins (the chime plays on \((try? sandbox.linkedDevices(of: "chime")) ?? []), the music at \(watcher.volume(of: "music").map { "\($0)" } ?? "?"); the daemon's meter of it: \(Self.meterLinks(of: "chime", in: sandbox))); log:\n\(daemon.log)"
            ) {
                (watcher.volume(of: "music") ?? 1) < 1
            }
        case .midCall:
            try sandbox.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
            try waitUntil(timeout: short, "the music is muted by policy") { watcher.node("music")?.props?.softMute == true }
        case .midUnplug, .whileWirePlumberMovesTheMusic:
            // The daemon has seen the music on its device once it mutes it for a call (it
            // handles the server's events in order): only then does an unplug pause it.
            let call = try sandbox.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
            try waitUntil(timeout: short, "the music is muted for the call") { watcher.node("music")?.props?.softMute == true }
            call.terminate()
            try waitUntil(timeout: short, "the music is unmuted after the call") { watcher.node("music")?.props?.softMute == false }
            let node = try #require(try sandbox.dump().node(named: device))
            try sandbox.run("pw-cli", ["destroy", String(node.id)])
            if moment == .midUnplug {
                try waitUntil(timeout: short, "the music is paused by mute after the unplug") {
                    watcher.node("music")?.props?.softMute == true
                }
            }
        case .whileStreamsComeAndGo:
            // Another player's short streams (music does not duck music: the volume stays the
            // user's); two of them seen come and go, then the stop.
            churn = try sandbox.spawn(
                "/bin/sh", ["-c", "while :; do timeout 0.15 pw-cat -p --media-role Music -P '{ node.name = jingle }' \(tone.path); done"])
            var seen = 0
            var present = false
            try waitUntil(timeout: short, poll: .milliseconds(5), "short streams come and go (seen \(seen))") {
                let now = watcher.node("jingle") != nil
                if now && !present { seen += 1 }
                present = now
                return seen >= 2
            }
        }
        let sent = ContinuousClock.now
        kill(daemon.process.pid, SIGTERM)
        let status = try daemon.process.waitForExit(timeout: Self.exitBound)
        let took = ContinuousClock.now - sent
        #expect(status == 0, "stop \(attempt) \(moment.rawValue): exit status \(status); log:\n\(daemon.log)")
        var music: PipeWireDump.Object?
        try waitUntil(
            timeout: short,
            "stop \(attempt) \(moment.rawValue): the music is at full volume and unmuted again (now \(music?.props ?? [:]))"
        ) {
            music = try sandbox.dump().node(named: "music")
            // Its own volume and its user's, and no share of ours left in the soft ones.
            return music?.volume == 1.0 && music?.mute == false && music?.softFactor == 1 && music?.softMute != true
        }
        // Whatever moved it, the music plays on WirePlumber's links.
        try coexistence.waitUntilLinkedByWirePlumber("music", in: sandbox)
        return took
    }
}

extension ShutdownInEveryStateTests {
    /// The daemon's level meter of a stream (a notification ducks once the meter hears it):
    /// whether it exists, its state, and what its input is linked to, beside WirePlumber.
    static func meterLinks(of stream: String, in sandbox: PrivatePipeWire) -> String {
        guard let dump = try? sandbox.dump(), let target = dump.node(named: stream) else { return "no graph or no \(stream)" }
        guard let meter = dump.nodes.first(where: { $0.name == "audiosession-meter-\(target.id)" }) else { return "no meter" }
        let names = Dictionary(dump.nodes.map { ($0.id, $0.name ?? "?") }, uniquingKeysWith: { first, _ in first })
        let inputs = dump.links.compactMap { link -> String? in
            guard (link.info["input-node-id"] as? NSNumber)?.uint32Value == meter.id else { return nil }
            let output = (link.info["output-node-id"] as? NSNumber)?.uint32Value
            return "\(output.flatMap { names[$0] } ?? "?") (link \(link.id) \(link.state ?? "?"))"
        }
        return "node \(meter.id) \(meter.state ?? "?"), fed by \(inputs); \(stream) \(target.state ?? "?")"
    }
}
