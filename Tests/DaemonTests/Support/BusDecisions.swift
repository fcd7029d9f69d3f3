import Foundation
import PipeWireSandbox

/// What the daemon decided, as it says on the bus: the `Decision` signals `audiosessionctl
/// monitor --json` prints (each session's kinds; `routeChanged` with its reason and previous
/// route; `pauseForRouteLoss` with its method), read instead of the daemon's log. Started and
/// subscribed before the test does what it watches.
struct BusDecisions {
    let process: ManagedProcess

    /// One `routeChanged`: its session, reason and previous route (`in[Type:uid] out[Type:uid]`,
    /// each port as `Port.description` writes it).
    struct Change: Equatable, CustomStringConvertible {
        var session: UInt64
        var reason: String
        var previous: String
        var description: String { "session#\(session) \(reason) from \(previous)" }
    }

    init(in sandbox: PrivatePipeWire, bus: PrivateSessionBus) throws {
        process = try sandbox.spawn(DaemonProcess.path(of: "audiosessionctl"), ["monitor", "--json"], extraEnvironment: bus.environment)
        let process = process
        try waitUntil(timeout: .seconds(10), "the monitor watches the daemon (it says: \(process.output) \(process.errorOutput))") {
            process.output.contains("\"signal\":\"Watching\"")
        }
    }

    private var decisions: [[String: Any]] {
        process.output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["signal"] as? String == "Decision"
            else { return nil }
            return object
        }
    }

    /// Every decision so far as (session, kind), in order.
    var all: [(session: UInt64, kind: String)] {
        decisions.map { (($0["session"] as? NSNumber)?.uint64Value ?? 0, $0["kind"] as? String ?? "") }
    }

    /// The sessions whose capture was silenced (a `captureSilenced` decision that silences).
    var captureSilenced: [UInt64] {
        decisions.filter {
            $0["kind"] as? String == "captureSilenced" && ($0["details"] as? [String: Any])?["silenced"] as? Bool == true
        }.map { ($0["session"] as? NSNumber)?.uint64Value ?? 0 }
    }

    /// The options of each `interruptionEnded` of `session` so far, in order.
    func interruptionEndings(of session: UInt64) -> [[String]] {
        decisions.filter { ($0["session"] as? NSNumber)?.uint64Value == session && $0["kind"] as? String == "interruptionEnded" }
            .map { ($0["details"] as? [String: Any])?["options"] as? [String] ?? [] }
    }

    /// The kinds of every decision about `session` so far, in order (`activated`, `link`, ...).
    func kinds(of session: UInt64) -> [String] {
        decisions.filter { ($0["session"] as? NSNumber)?.uint64Value == session }.compactMap { $0["kind"] as? String }
    }

    /// Every route change so far, in the order sent.
    var changes: [Change] {
        decisions.compactMap { object in
            guard object["kind"] as? String == "routeChanged", let details = object["details"] as? [String: Any] else { return nil }
            return Change(
                session: (object["session"] as? NSNumber)?.uint64Value ?? 0, reason: details["reason"] as? String ?? "",
                previous: Self.route(details["previousRoute"]))
        }
    }

    /// The sessions paused because their output went away, once per pause, in order.
    var pausesForRouteLoss: [UInt64] {
        decisions.filter { $0["kind"] as? String == "pauseForRouteLoss" }.map { ($0["session"] as? NSNumber)?.uint64Value ?? 0 }
    }

    /// How each of those pauses was carried out (`unlink`, `mute`, `mpris`, ...), in order.
    var pauseMethods: [String] {
        decisions.filter { $0["kind"] as? String == "pauseForRouteLoss" }.map { ($0["details"] as? [String: Any])?["method"] as? String ?? "" }
    }

    /// Waits until a route change with `reason` has come (`count` of them), and returns the last.
    @discardableResult
    func waitForChange(_ reason: String, count: Int = 1, timeout: Duration = .seconds(10)) throws -> Change {
        try waitUntil(timeout: timeout, "the daemon sends a routeChanged \(reason) (\(count)x; so far \(changes))") {
            changes.filter { $0.reason == reason }.count >= count
        }
        return changes.last { $0.reason == reason }!
    }

    /// Waits until `count` sessions were paused for losing their output.
    func waitForPauses(_ count: Int = 1, timeout: Duration = .seconds(10)) throws {
        try waitUntil(timeout: timeout, "the daemon pauses \(count) session(s) for a lost output (so far \(pausesForRouteLoss))") {
            pausesForRouteLoss.count >= count
        }
    }

    /// `in[Type:uid,...] out[Type:uid,...]` from a route as the monitor prints it.
    static func route(_ value: Any?) -> String {
        let route = value as? [String: Any] ?? [:]
        func ports(_ key: String) -> String {
            (route[key] as? [[String: Any]] ?? []).map { "\($0["type"] as? String ?? "?"):\($0["uid"] as? String ?? "?")" }
                .joined(separator: ",")
        }
        return "in[\(ports("inputs"))] out[\(ports("outputs"))]"
    }

    func terminate() { process.terminate() }
}

extension SessionOracle {
    /// The session that plays or records the node named `name`, waited for.
    func session(ofNodeNamed name: String, timeout: Duration = .seconds(10)) throws -> Session {
        var found: Session?
        try waitUntil(timeout: timeout, "a session has the node \(name)") {
            guard let node = try sandbox.dump().node(named: name) else { return false }
            found = try session(ofStream: node.id)
            return found != nil
        }
        return found!
    }

    /// A session's route now, as `in[Type:uid] out[Type:uid]`.
    func route(of session: UInt64) throws -> String {
        BusDecisions.route(try sessions().first { $0.id == session }?.fields["route"])
    }
}
