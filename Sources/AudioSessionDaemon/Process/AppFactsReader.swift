import AppProcesses
import SessionPolicy

/// Reads what an app's identity is made of — its sandbox's app id, its process and their
/// ancestors' executables — once per process: a process that opens stream after stream (a
/// softphone's calls, a game's sounds) costs one read of its `stat` per stream after the first.
struct AppFactsReader {
    private struct Known {
        /// Which process this is: its pid may be given to another one after it exits.
        var startTime: UInt64
        var sandboxAppID: String?
        var lineage: [ProcessEntry]
    }

    private var known: [Int32: Known] = [:]
    /// Processes remembered at most (a bounded memory: pids come and go).
    static let limit = 256

    mutating func facts(for stream: BackendStream) -> AppFacts {
        guard let pid = stream.processID, pid > 1 else {
            return AppFacts(sandboxAppID: stream.sandboxAppID, connection: stream.client)
        }
        let status = ProcessAncestry.status(of: pid)
        let process: Known
        if let cached = known[pid], let status, cached.startTime == status.startTime {
            process = cached
        } else {
            process = Known(
                startTime: status?.startTime ?? 0, sandboxAppID: FlatpakAppID.of(pid), lineage: ProcessAncestry.lineage(from: pid))
            if known.count >= Self.limit { known.removeAll() }
            if status != nil { known[pid] = process }  // a process already gone is not remembered
        }
        return AppFacts(
            sandboxAppID: stream.sandboxAppID ?? process.sandboxAppID, lineage: process.lineage, connection: stream.client)
    }

    mutating func forgetAll() { known.removeAll() }
}
