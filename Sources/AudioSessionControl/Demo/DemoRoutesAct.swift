import Foundation
import PipeWireGraph
import PipeWireSandbox

/// The demo's first act, routes: a sound card with a headphone jack, HDMI ignored, a USB DAC
/// taking over, the user's override, and the music pausing when the headphones are pulled.
/// Route changes are printed as the daemon reports them (reason and previous route, the same
/// decisions `monitor` shows); links as the demo's own observer sees them.
struct DemoRoutesAct {
    let timeline: DemoTimeline
    let daemonPath: String

    func run() throws {
        timeline.heading("Act 1 — routes: devices come and go, the music follows (or pauses).")
        let sandbox = try PrivatePipeWire(devices: [
            VirtualDevice(name: "hdmi-tv", description: "TV (HDMI)"),
            VirtualDevice(name: "mic", description: "Microphone", kind: .source, positions: ["MONO"]),
        ])
        defer { sandbox.stop() }
        let card = try sandbox.startRouteDevice(name: "card", description: "Built-in Audio")
        timeline.say(.pipewire, "private daemon up (pid \(sandbox.daemonPID.map(String.init) ?? "?")) in \(sandbox.runtimeDirectory.path)")
        timeline.note("devices: \(card.sinkName) (a sound card: speaker, and a headphone jack), hdmi-tv (sink), mic (source)")

        let observer = DemoObserver(remote: sandbox.socketPath)
        defer { observer.stop() }

        let daemon = try sandbox.spawn(daemonPath, [])
        do {
            try play(with: daemon, in: sandbox, card: card, observer: observer)
        } catch let error as DemoError {
            throw error
        } catch {
            // A step that did not happen: show what the daemon said, so it can be understood.
            throw DemoError.stepFailed(String(describing: error), log: daemon.errorOutput)
        }
    }

    private func play(
        with daemon: ManagedProcess, in sandbox: PrivatePipeWire, card: RouteDevice, observer: DemoObserver
    ) throws {
        let routes = DaemonRouteLog(process: daemon)
        try waitUntil(timeout: .seconds(10), "audiosessiond attaches and publishes the default devices") {
            observer.snapshot.defaultAudioSinkName != nil
        }
        timeline.say(.daemon, "audiosessiond attached (pid \(daemon.pid)) and published the default output: \(observer.snapshot.defaultAudioSinkName ?? "none") (HDMI never takes over by itself)")

        let tone = try sandbox.testTone(seconds: 30)
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music application.name = \"Music Player\" }"])
        timeline.say(.app, "Music Player starts: pw-cat --media-role Music")
        try observer.waitUntilLinked("music", to: [card.sinkName])
        timeline.say(.graph, "music → \(card.sinkName) (\(observer.activeRoute(of: card.globalID)))")
        try routes.follow(app: "Music Player")

        try card.plugHeadphones()
        timeline.say(.user, "plugs in the headphones")
        try say(try routes.next(), for: "music")
        timeline.say(.graph, "music → \(card.sinkName) (\(observer.activeRoute(of: card.globalID)))")

        try sandbox.play(role: "Game", file: tone, extraArguments: ["-P", "{ node.name = game }", "--target", "hdmi-tv"])
        timeline.say(.app, "a game asks for the TV by name: pw-cat --media-role Game --target hdmi-tv")
        try observer.waitUntilLinked("game", to: ["hdmi-tv"])
        timeline.say(.graph, "game → hdmi-tv (its own target is honoured; it mixes with the music)")

        try sandbox.run("pw-cli", ["create-node", "adapter", Self.usbDAC])
        try sandbox.configureDevicePorts(named: "usb-dac", positions: ["FL", "FR"])  // PipeWire 1.4 only
        timeline.say(.user, "plugs in a USB DAC")
        try say(try routes.next(), for: "music")
        try observer.waitUntilLinked("music", to: ["usb-dac"])
        try observer.waitUntilLinked("game", to: ["hdmi-tv"])
        timeline.say(.graph, "music → usb-dac (last in wins); game stays on hdmi-tv (pinned)")

        try sandbox.run("pw-metadata", ["-n", "default", "0", "default.configured.audio.sink", "{\"name\":\"\(card.sinkName)\"}", "Spa:String:JSON"])
        timeline.say(.user, "picks the sound card as the default output again")
        try say(try routes.next(), for: "music")
        try observer.waitUntilLinked("music", to: [card.sinkName])
        timeline.say(.graph, "music → \(card.sinkName) (\(observer.activeRoute(of: card.globalID))): an override, so it keeps playing")

        let unplugged = ContinuousClock.now
        try card.unplugHeadphones()
        timeline.say(.user, "unplugs the headphones")
        try observer.waitUntilLinked("music", to: [])
        let latency = ContinuousClock.now - unplugged
        let unplug = try routes.next()
        try say(unplug, for: "music")
        timeline.say(.graph, "music paused: unlinked \(Self.milliseconds(latency)) ms after the jack, instead of moving on to \(unplug.now)")

        kill(daemon.pid, SIGTERM)
        let status = try daemon.waitForExit(timeout: .seconds(5))
        timeline.say(.daemon, "SIGTERM → exited with status \(status)")
        try waitUntil(timeout: .seconds(5), "the daemon's links are gone with it") {
            observer.devices(linkedTo: "game").isEmpty
        }
        timeline.say(.check, "its links went with it: nothing it made outlives it")
        guard status == 0 else { throw DemoError.daemonFailed(status: status, log: daemon.errorOutput) }
    }

    /// Prints a route change the daemon reported, as `monitor` would.
    private func say(_ change: DaemonRouteLog.Change, for stream: String) throws {
        timeline.say(.daemon, "route change for \(stream): \(change.reason); previous route \(change.previous); now \(change.now)")
        if let pause = change.pause { timeline.say(.daemon, pause) }
    }

    /// A null sink that says it is on USB, as a USB DAC's sink does.
    static let usbDAC = """
        { factory.name = support.null-audio-sink node.name = "usb-dac" node.description = "USB DAC" \
        media.class = "Audio/Sink" audio.position = [ FL FR ] object.linger = true device.bus = "usb" \
        adapter.auto-port-config = { mode = dsp monitor = true position = preserve } }
        """

    static func milliseconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f", value)
    }
}

/// The daemon's own account of route changes, read from its log in order: one per step.
final class DaemonRouteLog {
    struct Change {
        var reason: String
        var previous: String
        var now: String
        /// "paused: ..." when the change paused the session.
        var pause: String?
    }

    private let process: ManagedProcess
    private var consumed = 0
    private var session = ""

    init(process: ManagedProcess) { self.process = process }

    /// Follows the session the daemon made for an app (`session#N for 'app'`).
    func follow(app: String, timeout: Duration = .seconds(10)) throws {
        var found: String?
        try waitUntil(timeout: timeout, "the daemon makes a session for \(app)") {
            found = process.errorOutput.split(separator: "\n").lazy.compactMap { line -> String? in
                    guard let match = line.firstMatch(of: /(session#\d+) for '([^']*)'/), match.2 == app else { return nil }
                    return String(match.1)
                }.first
            return found != nil
        }
        session = found!
    }

    /// Waits for the followed session's next route change.
    func next(timeout: Duration = .seconds(10)) throws -> Change {
        var found: Change?
        try waitUntil(timeout: timeout, "the daemon reports a route change of \(session)") {
            let lines = process.errorOutput.split(separator: "\n")
            let changes = lines.enumerated().filter { $0.element.contains(" \(session) route change: ") }
            guard changes.count > consumed else { return false }
            let (index, line) = changes[consumed]
            guard let match = line.firstMatch(of: /route change: (\w+ \(\d+\)); previous (.*); now (.*)$/) else { return false }
            let pause = lines.dropFirst(index + 1).prefix(4).first { $0.contains(" \(session) paused: ") }
                .map { String($0[$0.range(of: "paused: ")!.lowerBound...]) }
            found = Change(reason: String(match.1), previous: String(match.2), now: String(match.3), pause: pause)
            consumed += 1
            return true
        }
        return found!
    }
}

extension DemoObserver {
    /// The description of a device's active route ("Headphones", "Speakers"), as PipeWire shows it.
    func activeRoute(of device: UInt32) -> String {
        snapshot.devices[device]?.activeRoutes.first.map { "\($0.description) route" } ?? "no route"
    }
}
