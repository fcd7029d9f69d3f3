import Foundation
import PipeWireSandbox

/// The daemon's sessions as `audiosessionctl status --json` reports them over the bus: what a
/// user sees, read through the same path they read it.
struct SessionOracle {
    let sandbox: PrivatePipeWire
    let busAddress: String

    struct Session {
        let fields: [String: Any]
        var id: UInt64 { (fields["id"] as? NSNumber)?.uint64Value ?? 0 }
        var category: String { fields["category"] as? String ?? "" }
        var mode: String { fields["mode"] as? String ?? "" }
        var priorityClass: String { fields["priorityClass"] as? String ?? "" }
        var activity: String { fields["activity"] as? String ?? "" }
        var classifiedBy: String { fields["classifiedBy"] as? String ?? "" }
        var appIdentity: String { fields["appIdentity"] as? String ?? "" }
        var captureSilenced: Bool { fields["captureSilenced"] as? Bool ?? false }
        var silenced: Bool { fields["silenced"] as? Bool ?? false }
        var gain: Double { (fields["gain"] as? NSNumber)?.doubleValue ?? 1 }
        var streams: [UInt32] { (fields["streams"] as? [NSNumber])?.map(\.uint32Value) ?? [] }
        /// An interruption can pause its app over MPRIS.
        var hasMPRISPlayer: Bool { fields["mprisPlayer"] as? Bool ?? false }
        /// Bus name → PlaybackStatus, as the daemon last heard it.
        var mprisPlayers: [String: String] { fields["mprisPlayers"] as? [String: String] ?? [:] }
        /// `none`, `pausing`, `paused`, `heldInstead` or `resuming`.
        var mprisPause: String { fields["mprisPause"] as? String ?? "" }
        var mprisOwedPlay: [String] { fields["mprisOwedPlay"] as? [String] ?? [] }
        /// The uids of the ports of its route's outputs.
        var outputUIDs: [String] {
            ((fields["route"] as? [String: Any])?["outputs"] as? [[String: Any]] ?? []).compactMap { $0["uid"] as? String }
        }
        /// The port types of its route's outputs (`HDMI`, `Speaker`, ...).
        var outputTypes: [String] {
            ((fields["route"] as? [String: Any])?["outputs"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
        }
        var summary: String { "\(category)/\(mode) class \(priorityClass) by \(classifiedBy) \(activity) streams \(streams)" }
    }

    /// Runs `audiosessionctl` against the daemon (e.g. `silent on`); its output.
    @discardableResult
    func ctl(_ arguments: [String]) throws -> String {
        try ManagedProcess.run(
            DaemonProcess.path(of: "audiosessionctl"), arguments,
            environment: sandbox.environment.merging(["DBUS_SESSION_BUS_ADDRESS": busAddress]) { $1 },
            logDirectory: sandbox.logDirectory)
    }

    /// The whole of `status --json`.
    func status() throws -> [String: Any] {
        let output = try ctl(["status", "--json"])
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
    }

    /// The rules in force and how they were last read, as `status --json` says.
    struct RulesReading: CustomStringConvertible {
        let fields: [String: Any]
        var files: [String] { fields["files"] as? [String] ?? [] }
        var reads: Int { (fields["reads"] as? NSNumber)?.intValue ?? 0 }
        var reason: String { fields["reason"] as? String ?? "" }
        /// `loaded`, `reloaded`, `unchanged` or `failed`.
        var outcome: String { fields["outcome"] as? String ?? "" }
        var error: String { fields["error"] as? String ?? "" }
        var description: String { "read \(reads) times, last (\(reason)) \(outcome) \(error)" }
    }

    func rules() throws -> RulesReading {
        RulesReading(fields: try status()["rules"] as? [String: Any] ?? [:])
    }

    func sessions() throws -> [Session] {
        (try status()["sessions"] as? [[String: Any]] ?? []).map(Session.init)
    }

    /// The session of the app whose topmost process (of its own executable) is `pid`.
    func session(ofProcess pid: Int32) throws -> Session? {
        try sessions().first { $0.appIdentity == "process:\(pid)" }
    }

    /// The session holding this stream node.
    func session(ofStream node: UInt32) throws -> Session? {
        try sessions().first { $0.streams.contains(node) }
    }
}
