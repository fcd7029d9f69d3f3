import PipeWireSandbox

/// A call between two real phones, as the daemon shows it: each end (a process) one call
/// session that plays and records, every stream of it linked. The sessions seen on the way are
/// kept: an end's session may be made anew while its streams come.
final class TwoPartyCall {
    let ends: [Int32]
    private let rig: MPRISInterruptionTests.Rig
    private let oracle: SessionOracle
    private(set) var sessions: Set<UInt64> = []

    init(_ ends: [Int32], rig: MPRISInterruptionTests.Rig, oracle: SessionOracle) {
        self.ends = ends
        self.rig = rig
        self.oracle = oracle
    }

    /// Both ends are heard now (``RealAppPolicyTests/callEndsHeard(_:in:oracle:sessions:)``).
    func isHeard() throws -> Bool {
        try RealAppPolicyTests.callEndsHeard(ends, in: rig, oracle: oracle, sessions: &sessions)
    }

    /// Each end's session and its streams as the daemon and the graph have them now: what a
    /// call that never came up shows (for a failure's message).
    func state() -> String {
        let dump = try? rig.sandbox.dump()
        return ends.map { end in
            guard let session = try? oracle.session(ofProcess: end) else { return "pid \(end): no session" }
            let streams = session.streams.map { id in
                guard let node = dump?.nodes.first(where: { $0.id == id }) else { return "\(id) gone" }
                let linked = node.name.flatMap { try? rig.sandbox.linkedDevices(of: $0) }.map { $0.sorted().joined(separator: "+") } ?? "?"
                return "\(id) '\(node.name ?? "?")' \(node.mediaClass ?? "?") \(node.state ?? "?") linked to [\(linked)]"
            }
            return "pid \(end): \(session.summary); streams: \(streams.joined(separator: ", "))"
        }.joined(separator: "\n")
    }
}
