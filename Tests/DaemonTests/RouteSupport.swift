import Foundation
import PipeWireGraph
import PipeWireSandbox
import Synchronization

/// What the route tests share: sinks that look like hardware, and reading the daemon's route
/// log lines (the same decisions `monitor` and the D-Bus RouteChange signal carry).
extension PrivatePipeWire {
    /// A null sink with extra properties (`device.bus = usb`, a `node.name` with "hdmi"): the
    /// daemon types it like the hardware it pretends to be. It lingers until destroyed.
    func createSink(named name: String, properties: [String: String] = [:]) throws {
        let extra = properties.sorted { $0.key < $1.key }.map { "\($0.key) = \"\($0.value)\"" }.joined(separator: " ")
        let arguments = """
            { factory.name = support.null-audio-sink node.name = "\(name)" node.description = "\(name)" \
            media.class = "Audio/Sink" audio.position = [ FL FR ] object.linger = true \(extra) \
            adapter.auto-port-config = { mode = dsp monitor = true position = preserve } }
            """
        try run("pw-cli", ["create-node", "adapter", arguments])
        try waitUntil(timeout: .seconds(5), "node \(name) appears") { try dump().node(named: name) != nil }
        try configureDevicePorts(named: name, positions: ["FL", "FR"])
    }

    /// A virtual source (a microphone) with extra properties; lingers until destroyed.
    func createSource(named name: String, properties: [String: String] = [:]) throws {
        let extra = properties.sorted { $0.key < $1.key }.map { "\($0.key) = \"\($0.value)\"" }.joined(separator: " ")
        let arguments = """
            { factory.name = support.null-audio-sink node.name = "\(name)" node.description = "\(name)" \
            media.class = "Audio/Source/Virtual" audio.position = [ MONO ] object.linger = true \(extra) \
            adapter.auto-port-config = { mode = dsp monitor = true position = preserve } }
            """
        try run("pw-cli", ["create-node", "adapter", arguments])
        try waitUntil(timeout: .seconds(5), "node \(name) appears") { try dump().node(named: name) != nil }
        try configureDevicePorts(named: name, positions: ["MONO"])
    }

    /// Sets the user's default source (the microphone) as `wpctl set-default` does.
    func chooseDefaultSource(_ name: String) throws {
        try chooseDefault("default.configured.audio.source", name)
    }

    /// Sets the user's default sink as `wpctl set-default` / pavucontrol do.
    func chooseDefaultSink(_ name: String) throws {
        try chooseDefault("default.configured.audio.sink", name)
    }

    /// Writes the `default` metadata's key and waits until it is there: right after the daemon
    /// attached, its `default` metadata may not be exported yet, and pw-metadata's write to a
    /// metadata that is not there is lost (so it is written again until it holds).
    private func chooseDefault(_ key: String, _ name: String) throws {
        try waitUntil(timeout: .seconds(5), "the default metadata holds \(key) = \(name)") {
            try run("pw-metadata", ["-n", "default", "0", key, "{\"name\":\"\(name)\"}", "Spa:String:JSON"])
            return try defaultDevice(key) == name
        }
    }
}

/// One `route change:` line of the daemon's log.
struct LoggedRouteChange: Equatable {
    var reason: String
    var previous: String
    var now: String

    /// Every route change the daemon logged, in order.
    static func all(in log: String) -> [LoggedRouteChange] {
        log.split(separator: "\n").compactMap { line in
            guard let match = line.firstMatch(of: /route change: (\w+) \(\d+\); previous (.*); now (.*)$/) else { return nil }
            return LoggedRouteChange(reason: String(match.1), previous: String(match.2), now: String(match.3))
        }
    }
}

/// Milliseconds since `start`, for the latencies the report quotes.
func milliseconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}

/// An independent PipeWire client that notes when a stream's last link went away
/// (CLOCK_MONOTONIC, the clock the test card stamps its jack flips with).
final class RouteLatencyProbe: Sendable {
    let graph: PipeWireGraph
    private final class Marks: Sendable {
        let unlinked = Mutex<Double?>(nil)
    }
    private let marks = Marks()

    init(_ sandbox: PrivatePipeWire, watching stream: String) throws {
        graph = PipeWireGraph(configuration: .init(remote: sandbox.socketPath, applicationName: "route-probe"))
        let marks = self.marks
        graph.setObserver { event, snapshot in
            guard case .removed(.link(let link)) = event, let node = snapshot.node(named: stream),
                link.outputNode == node.id || link.inputNode == node.id, snapshot.links(of: node.id).isEmpty
            else { return }
            let now = RouteLatencyProbe.monotonicSeconds()
            marks.unlinked.withLock { $0 = now }
        }
        graph.start()
        // Connected is not enough: a link the probe never saw cannot be seen going away (a
        // CI run timed out so, the daemon's unlink long done).
        let graph = self.graph
        try waitUntil(timeout: .seconds(5), "the probe sees \(stream) linked") {
            guard let node = graph.snapshot.node(named: stream) else { return false }
            return !graph.snapshot.links(of: node.id).isEmpty
        }
    }

    deinit { graph.stop() }

    var unlinkedAt: Double? { marks.unlinked.withLock { $0 } }

    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
