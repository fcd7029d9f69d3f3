import Foundation
import PipeWireGraph
import PipeWireSandbox
import SessionBus
import Synchronization
import Testing

/// A call pauses a real media player over MPRIS and resumes it: mpv with the mpv-mpris plugin
/// playing Music through pipewire-pulse, on a private session bus, under the real daemon;
/// `playerctl` reads the player's state.
@Suite("MPRIS: a call pauses media players and resumes them", .serialized)
struct MPRISInterruptionTests {
    static let mprisPlugin = ["/usr/lib/mpv-mpris/mpris.so", "/etc/mpv/scripts/mpris.so"]
        .first { FileManager.default.fileExists(atPath: $0) } ?? "/usr/lib/mpv-mpris/mpris.so"

    /// A private PipeWire (with pipewire-pulse), a private session bus and the daemon on both.
    final class Rig {
        let sandbox: PrivatePipeWire
        let bus: PrivateSessionBus
        /// The daemon running now (a new one after ``restartDaemon()``), and where it says it is ready.
        private(set) var running: DaemonProcess
        var daemon: ManagedProcess { running.process }
        let tone: URL

        /// `prepare` runs before the daemon starts (a route device must be there first).
        init(
            devices: [VirtualDevice] = VirtualDevice.standard, prepare: (PrivatePipeWire) throws -> Void = { _ in }
        ) throws {
            sandbox = try PrivatePipeWire(devices: devices)
            do {
                bus = try PrivateSessionBus()
            } catch {
                sandbox.stop()
                throw error
            }
            do {
                try sandbox.startPulse()
                try prepare(sandbox)
                running = try Self.spawnDaemon(in: sandbox, bus: bus)
                tone = try sandbox.testTone()
            } catch {
                sandbox.stop()
                bus.stop()
                throw error
            }
        }

        /// The daemon on the rig's PipeWire and bus; state and config inside the sandbox, the
        /// same across restarts (its journals survive it).
        private static func spawnDaemon(in sandbox: PrivatePipeWire, bus: PrivateSessionBus) throws -> DaemonProcess {
            try DaemonProcess(in: sandbox, environment: bus.environment)
        }

        private static func stateDirectory(of sandbox: PrivatePipeWire) -> URL {
            sandbox.directory.appendingPathComponent("state")
        }

        /// The journal of MPRIS pauses the daemon owes a Play, if it left one.
        var mprisJournal: String? {
            try? String(
                contentsOf: Self.stateDirectory(of: sandbox).appendingPathComponent("mpris-pauses.json"), encoding: .utf8)
        }

        /// Sends `signal` to the daemon and waits for it to exit; returns its exit status.
        @discardableResult
        func stopDaemon(_ signal: Int32) throws -> Int32 {
            kill(daemon.pid, signal)
            return try daemon.waitForExit(timeout: .seconds(5))
        }

        /// A new daemon (after ``stopDaemon(_:)``), ready like the first; the old one's log is
        /// kept in ``previousLogs``.
        func restartDaemon() async throws {
            previousLogs.append(daemon.errorOutput)
            running = try Self.spawnDaemon(in: sandbox, bus: bus)
            _ = try await ready()
        }

        private(set) var previousLogs: [String] = []

        /// Waits until the running daemon has said `READY=1` `count` times (once more after each
        /// time PipeWire went away and came back).
        func waitUntilReady(count: Int = 1, timeout: Duration = .seconds(10)) async throws {
            try await running.readiness.waitUntilReady(of: daemon, count: count, timeout: timeout)
        }

        /// Waits until the daemon says it is ready: attached to PipeWire, serving the bus, the
        /// players on it listed.
        func ready() async throws -> Rig {
            do {
                try await waitUntilReady()
            } catch {
                stop()
                throw error
            }
            return self
        }

        /// The daemon's latest word on a player's status: a session's `mprisPlayers` in
        /// `status --json`.
        func waitForDaemonToSee(_ player: String, _ status: String) async throws {
            try await waitForSessions("the daemon knows \(player) is \(status)") { sessions in
                sessions.contains { $0.mprisPlayers[player] == status }
            }
        }

        /// Waits until the sessions of `status --json` meet `condition`; a failure says what
        /// they were last.
        func waitForSessions(
            _ what: String, timeout: Duration = .seconds(10), _ condition: @escaping ([SessionOracle.Session]) -> Bool
        ) async throws {
            let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
            var last: [SessionOracle.Session] = []
            try await eventually(timeout: timeout, "\(what) (sessions now: \(Self.describe(last))); log:\n\(log)") {
                guard daemon.isRunning else { throw SandboxError.notRunning("\(daemon.describeEnd()):\n\(log)") }
                last = try oracle.sessions()
                return condition(last)
            }
        }

        /// Waits until the session with `player` among its MPRIS players meets `condition`.
        func waitForPlayerSession(
            _ what: String, player: String = MPRISLeftoverTests.mpv, timeout: Duration = .seconds(10),
            _ condition: @escaping (SessionOracle.Session) -> Bool
        ) async throws {
            try await waitForSessions("\(player)'s session: \(what)", timeout: timeout) { sessions in
                sessions.first { $0.mprisPlayers[player] != nil }.map(condition) ?? false
            }
        }

        /// Waits until the session that plays the node `name` is known (the daemon has handled
        /// the graph up to that node's appearance).
        func waitForSessionOfNode(_ name: String) async throws {
            var node: UInt32?
            let sandbox = self.sandbox
            try await waitForSessions("a session plays node \(name)") { sessions in
                if node == nil { node = (try? sandbox.dump())?.node(named: name)?.id }
                guard let node else { return false }
                return sessions.contains { $0.streams.contains(node) }
            }
        }

        static func describe(_ sessions: [SessionOracle.Session]) -> String {
            sessions.map { "\($0.id) \($0.summary) players \($0.mprisPlayers) pause \($0.mprisPause) owed \($0.mprisOwedPlay)" }
                .joined(separator: "; ")
        }

        /// Links of a node, waited for without blocking a thread of the test's task pool.
        func waitUntilLinked(_ node: String, to devices: Set<String>) async throws {
            try await eventually(timeout: .seconds(5), "\(node) is linked to \(devices.sorted())") {
                try sandbox.linkedDevices(of: node) == devices
            }
        }

        /// Kills every process the rig started (mpv, pw-cat, the daemon, PipeWire, the bus), by PID.
        func stop() {
            sandbox.stop()
            bus.stop()
        }

        var log: String { daemon.errorOutput }

        func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(10)) async throws {
            try await eventually(timeout: timeout, "the daemon logs '\(text)' (\(count)x); log:\n\(log)") {
                guard daemon.isRunning else { throw SandboxError.notRunning("\(daemon.describeEnd()):\n\(log)") }
                return log.components(separatedBy: text).count - 1 >= count
            }
        }

        /// mpv playing the tone in a loop as a Music stream, with its MPRIS player on our bus.
        /// `ao`: `pulse` (through pipewire-pulse: a pause corks the stream) or `pipewire` (a
        /// pause makes the stream inactive: it goes idle).
        func startPlayer(paused: Bool = false, ao: String = "pulse") throws -> ManagedProcess {
            var arguments = [
                "--no-config", "--script=\(MPRISInterruptionTests.mprisPlugin)", "--no-video", "--ao=\(ao)",
                "--audio-client-name=music-player", "--idle=yes", "--loop-file=inf", "--no-terminal",
            ]
            if paused { arguments.append("--pause") }
            return try sandbox.spawn(
                "mpv", arguments + [tone.path],
                extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PULSE_PROP": "media.role=music"])
        }

        func startCall() throws -> ManagedProcess {
            try sandbox.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
        }

        /// `playerctl status` of mpv: Playing, Paused or Stopped.
        func status() throws -> String {
            try ManagedProcess.run(
                "playerctl", ["--player=mpv", "status"],
                environment: sandbox.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 },
                logDirectory: sandbox.logDirectory
            ).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func playerctl(_ command: String) throws {
            try ManagedProcess.run(
                "playerctl", ["--player=mpv", command],
                environment: sandbox.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 },
                logDirectory: sandbox.logDirectory)
        }

        func waitForStatus(_ expected: String, timeout: Duration = .seconds(10)) async throws {
            var last = ""
            try await eventually(timeout: timeout, "mpv is \(expected) (playerctl says '\(last)'); daemon log:\n\(log)") {
                last = (try? status()) ?? "no player"
                return last == expected
            }
        }

        /// Waits until `count` sessions (exactly, or at least) have an MPRIS player, as
        /// `status --json` says (`mprisPlayer`): the daemon matched them to players on the bus.
        func waitForSessionsWithPlayers(_ count: Int, exactly: Bool = false, timeout: Duration = .seconds(10)) async throws {
            let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
            var now: [String] = []
            try await eventually(timeout: timeout, "\(exactly ? "" : "at least ")\(count) session(s) with an MPRIS player (now \(now)); log:\n\(log)") {
                guard daemon.isRunning else { throw SandboxError.notRunning("\(daemon.describeEnd()):\n\(log)") }
                let sessions = try oracle.sessions()
                now = sessions.filter(\.hasMPRISPlayer).map { "\($0.id) \($0.summary)" }
                return exactly ? now.count == count : now.count >= count
            }
        }

        /// mpv plays, its stream is linked and the daemon matched it to its player.
        func startPlayingMusic(ao: String = "pulse") async throws -> ManagedProcess {
            let player = try startPlayer(ao: ao)
            try await waitForStatus("Playing")
            try await waitForSessionsWithPlayers(1)
            try await waitForDaemonToSee("org.mpris.MediaPlayer2.mpv", "Playing")
            return player
        }
    }

    @Test(arguments: ["pulse", "pipewire"])
    func aCallPausesTheMusicAndItsEndPlaysItAgain(ao: String) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        _ = try await rig.startPlayingMusic(ao: ao)
        let timing = try await StatusTimer(busAddress: rig.bus.address, sandbox: rig.sandbox)

        let callStarted = ContinuousClock.now
        let call = try rig.startCall()
        try await rig.waitForStatus("Paused")
        // Confirmed, and never held instead (that would read heldInstead until the call ends).
        try await rig.waitForPlayerSession("paused by us, confirmed, owed a Play") {
            $0.mprisPause == "paused" && $0.mprisOwedPlay == [MPRISLeftoverTests.mpv]
        }
        try await eventually(timeout: .seconds(5), "the test's own clients saw the call stream and mpv's Paused") {
            timing.appeared("call") != nil && timing.firstStatus("Paused") != nil
        }
        let appeared = try #require(timing.appeared("call"))
        let paused = try #require(timing.firstStatus("Paused"))
        let inDaemon = rig.log.split(separator: "\n").first { $0.contains("confirmed Paused") }.map {
            String($0[$0.range(of: "confirmed")!.lowerBound...])
        } ?? "?"
        print("MPRIS pause latency (--ao=\(ao)) in the daemon: \(inDaemon)")
        print("MPRIS pause latency (--ao=\(ao)): call stream appeared → mpv Paused \(Self.ms(paused - appeared)) ms; pw-cat spawned → Paused \(Self.ms(paused - callStarted)) ms")

        call.terminate()
        try await rig.waitForStatus("Playing")
        try await rig.waitForPlayerSession("our Play confirmed: no pause, nothing owed") {
            $0.mprisPause == "none" && $0.mprisOwedPlay.isEmpty && $0.mprisPlayers[MPRISLeftoverTests.mpv] == "Playing"
        }
    }

    @Test func aPlayerItsUserTookOverDuringTheCallStaysPaused() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        _ = try await rig.startPlayingMusic()
        let call = try rig.startCall()
        try await rig.waitForStatus("Paused")
        try await rig.waitForPlayerSession("paused by us, confirmed") { $0.mprisPause == "paused" }

        // The user presses play during the call: the call still holds the music, so it is
        // paused again at once, and the user pauses it themselves too.
        try rig.playerctl("play")
        try await rig.waitForPlayerSession("its user took over: still paused for the call, owed nothing") {
            $0.mprisPause != "none" && $0.mprisOwedPlay.isEmpty
        }
        try await rig.waitForStatus("Paused")
        try rig.playerctl("pause")
        try await rig.waitForStatus("Paused")

        call.terminate()
        // Had the end pressed Play, the pause would be resuming until mpv played.
        try await rig.waitForPlayerSession("the call over, no pause left") { $0.mprisPause == "none" }
        #expect(try rig.status() == "Paused", "the end of the call does not press play for a user who took over")
    }

    @Test func aPlayerItsUserStoppedDuringTheCallStaysStopped() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        _ = try await rig.startPlayingMusic()
        let call = try rig.startCall()
        try await rig.waitForPlayerSession("paused by us, confirmed") { $0.mprisPause == "paused" }
        try rig.playerctl("stop")
        // mpv drops its stream when stopped: the interruption closes without an end, and no
        // session keeps a pause.
        try await rig.waitForSessions("no pause left after mpv stopped") { sessions in
            sessions.allSatisfy { $0.mprisPause == "none" }
        }
        call.terminate()
        // Graph events are handled in order: a later stream's session means the call's end is behind.
        _ = try rig.sandbox.play(role: "Notification", file: rig.tone, extraArguments: ["-P", "{ node.name = later }"])
        try await rig.waitForSessionOfNode("later")
        #expect(try rig.status() == "Stopped")
    }

    @Test func aPlayerPausedBeforeTheCallIsNotStartedByItsEnd() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        _ = try rig.startPlayer(paused: true)
        try await rig.waitForStatus("Paused")
        try await rig.waitForDaemonToSee(MPRISLeftoverTests.mpv, "Paused")
        let call = try rig.startCall()
        try await rig.waitForSessionOfNode("call")
        // The call may find its stream still running and hold it (seen here: mpv opened paused
        // over pulse was interrupted, held instead); but mpv says Paused: nothing pressed,
        // nothing owed.
        try await rig.waitForPlayerSession("not paused by us: it was not playing") { $0.mprisOwedPlay.isEmpty }
        call.terminate()
        // The daemon handles graph events in order: once it has seen a later stream, the end of
        // the call is behind it.
        _ = try rig.sandbox.play(role: "Notification", file: rig.tone, extraArguments: ["-P", "{ node.name = later }"])
        try await rig.waitForSessionOfNode("later")
        try await rig.waitForPlayerSession("still no pause of ours") { $0.mprisPause == "none" }
        #expect(try rig.status() == "Paused")
    }

    @Test func aPlayerThatDoesNotAnswerHasItsStreamsHeldInstead() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        // A hung player: it owns its name and says Playing, but never answers a call. It is
        // served by this test process, so it is the player of the pw-cat streams we start.
        let player = try await FakePlayer(busAddress: rig.bus.address, name: "hung", answers: false)
        defer { player.close() }
        _ = try rig.sandbox.play(role: "Music", file: rig.tone, extraArguments: ["-P", "{ node.name = music }"])
        try await rig.waitUntilLinked("music", to: ["headphones"])
        try await rig.waitForSessionsWithPlayers(1)

        let call = try rig.startCall()
        try await rig.waitForPlayerSession("held instead: its player never answered", player: "org.mpris.MediaPlayer2.hung") {
            $0.mprisPause == "heldInstead"
        }
        try await eventually(timeout: .seconds(5), "the music is unlinked during the call") {
            try rig.sandbox.linkedDevices(of: "music").isEmpty
        }
        #expect(player.calls.contains("Pause"))

        call.terminate()
        try await rig.waitUntilLinked("music", to: ["headphones"])
        try await rig.waitForPlayerSession("the call over, no pause left", player: "org.mpris.MediaPlayer2.hung") { $0.mprisPause == "none" }
        #expect(!player.calls.contains("Play"), "it never confirmed a pause: nothing to resume")
    }

    @Test func aPlayerThatLeavesTheBusBeforeConfirmingHasItsStreamsHeldInstead() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        // Answers Pause but never reports Paused; it quits instead.
        let player = try await FakePlayer(busAddress: rig.bus.address, name: "leaving", answers: true)
        defer { player.close() }
        _ = try rig.sandbox.play(role: "Music", file: rig.tone, extraArguments: ["-P", "{ node.name = music }"])
        try await rig.waitUntilLinked("music", to: ["headphones"])
        try await rig.waitForSessionsWithPlayers(1)

        let call = try rig.startCall()
        try await eventually(timeout: .seconds(5), "the daemon pressed Pause") { player.calls.contains("Pause") }
        try await player.leave()
        try await rig.waitForSessionsWithPlayers(0, exactly: true)  // capabilities back to unlink and mute
        try await rig.waitForSessions("the music's session is held instead") { sessions in
            sessions.contains { $0.mprisPause == "heldInstead" }
        }
        try await eventually(timeout: .seconds(5), "the music is unlinked during the call") {
            try rig.sandbox.linkedDevices(of: "music").isEmpty
        }
        call.terminate()
        try await rig.waitUntilLinked("music", to: ["headphones"])
    }

    @Test func unpluggingTheHeadphonesPausesThePlayerAndNothingPlaysItAgain() async throws {
        nonisolated(unsafe) var card: RouteDevice?
        let rig = try await Rig(devices: [VirtualDevice(name: "mic", kind: .source, positions: ["MONO"])]) { sandbox in
            card = try sandbox.startRouteDevice(name: "card", description: "Built-in Audio")
            try card?.plugHeadphones()
        }.ready()
        defer { rig.stop() }
        let jack = try #require(card)
        _ = try await rig.startPlayingMusic()
        let headphones = "card-output:analog-output-headphones"
        try await rig.waitForPlayerSession("routed to the headphones") { $0.outputUIDs == [headphones] }

        try jack.unplugHeadphones()
        try await rig.waitForStatus("Paused")
        try await rig.waitForPlayerSession("off the headphones") { !$0.outputUIDs.contains(headphones) }

        // Plugged back in: the route returns, the player stays paused (pause on unplug is not
        // an interruption; nothing resumes it but its user).
        try jack.plugHeadphones()
        try await rig.waitForPlayerSession("routed to the headphones again") { $0.outputUIDs == [headphones] }
        try await rig.waitForPlayerSession("no pause of ours: a lost route is not an interruption") {
            $0.mprisPause == "none" && $0.mprisOwedPlay.isEmpty
        }
        #expect(try rig.status() == "Paused")
    }

    static func ms(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 10).rounded() / 10)"
    }
}

/// A media player served by the test process itself, for players that misbehave: one that
/// never answers (`answers: false`), or one that answers Pause but never reports Paused.
final class FakePlayer: Sendable {
    private let bus: BusConnection
    private let name: String
    private final class Record: Sendable {
        let calls = Mutex<[String]>([])
        /// Calls kept unanswered (a hung player): dropping them would answer them with Failed.
        let held = Mutex<[BusCall]>([])
    }
    private let record = Record()

    init(busAddress: String, name: String, answers: Bool) async throws {
        bus = try BusConnection(address: busAddress)
        self.name = "org.mpris.MediaPlayer2." + name
        let record = self.record
        _ = try bus.export(
            path: "/org/mpris/MediaPlayer2",
            interfaces: [
                BusInterface(
                    "org.mpris.MediaPlayer2.Player", methods: [BusMethod("Pause"), BusMethod("Play")],
                    properties: [BusProperty("PlaybackStatus", "s")])
            ],
            properties: ["org.mpris.MediaPlayer2.Player": ["PlaybackStatus": .string("Playing")]]
        ) { call in
            record.calls.withLock { $0.append(call.member) }
            if answers { call.reply() } else { record.held.withLock { $0.append(call) } }
        }
        try await bus.requestName(self.name)
    }

    var calls: [String] { record.calls.withLock { $0 } }

    /// Gives up the name, as a player that quits does.
    func leave() async throws { try await bus.releaseName(name) }

    func close() {
        for call in record.held.withLock({ $0 }) { call.fail(.failed("test over")) }
        bus.close()
    }
}

/// When things happened, seen by the test's own clients: a PipeWire observer for stream
/// appearance and a session-bus connection for mpv's PlaybackStatus signals.
final class StatusTimer: Sendable {
    private let graph: PipeWireGraph
    private let bus: BusConnection
    private final class Seen: Sendable {
        let appearances = Mutex<[String: ContinuousClock.Instant]>([:])
        let statuses = Mutex<[(String, ContinuousClock.Instant)]>([])
    }

    private let seen = Seen()

    init(busAddress: String, sandbox: PrivatePipeWire) async throws {
        graph = PipeWireGraph(configuration: .init(remote: sandbox.socketPath, applicationName: "test-timer"))
        bus = try BusConnection(address: busAddress)
        let seen = self.seen
        graph.setObserver { event, _ in
            guard case .added(.node(let node)) = event else { return }
            let now = ContinuousClock.now
            seen.appearances.withLock { if $0[node.name] == nil { $0[node.name] = now } }
        }
        graph.start()
        try await eventually(timeout: .seconds(5), "the observer is connected") { graph.isConnected }
        let signals = try await bus.signals(
            path: "/org/mpris/MediaPlayer2", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        Task {
            for await signal in signals {
                guard signal.arguments.count >= 2,
                    let status = signal.arguments[1].dictionaryValue?["PlaybackStatus"]?.stringValue
                else { continue }
                let now = ContinuousClock.now
                seen.statuses.withLock { $0.append((status, now)) }
            }
        }
    }

    deinit {
        graph.stop()
        bus.close()
    }

    /// The name of the stream node a process plays (pulse clients: from their client's pid).
    func streamName(ofProcess pid: Int32) -> String? {
        graph.snapshot.streams.first { $0.properties["application.process.id"] == String(pid) }?.name
    }

    func appeared(_ node: String) -> ContinuousClock.Instant? { seen.appearances.withLock { $0[node] } }

    func firstStatus(_ status: String) -> ContinuousClock.Instant? {
        seen.statuses.withLock { $0.first { $0.0 == status }?.1 }
    }
}

/// `waitUntil` that suspends between polls instead of blocking a thread of the test's task
/// pool (the bus signal tasks of the code under test run there). The description is read when
/// time runs out, so it shows what the condition last saw.
private func eventually(
    timeout: Duration, _ description: @autoclosure () -> String, _ condition: () throws -> Bool
) async throws {
    try await waitUntil(timeout: timeout, description()) { () async throws -> Bool in try condition() }
}
