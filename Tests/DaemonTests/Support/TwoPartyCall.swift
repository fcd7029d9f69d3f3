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
}
