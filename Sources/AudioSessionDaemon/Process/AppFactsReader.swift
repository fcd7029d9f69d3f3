import AppProcesses
import SessionPolicy

/// Reads what an app's identity is made of — its sandbox's app id, its process and their
/// ancestors' executables — once per process while it has streams.
struct AppFactsReader {
    private struct Known {
        var sandboxAppID: String?
        var lineage: [ProcessEntry]
    }

    private var known: [Int32: Known] = [:]

    mutating func facts(for stream: BackendStream) -> AppFacts {
        guard let pid = stream.processID, pid > 1 else {
            return AppFacts(sandboxAppID: stream.sandboxAppID, connection: stream.client)
        }
        let process: Known
        if let cached = known[pid] {
            process = cached
        } else {
            process = Known(sandboxAppID: FlatpakAppID.of(pid), lineage: ProcessAncestry.lineage(from: pid))
            known[pid] = process
        }
        return AppFacts(
            sandboxAppID: stream.sandboxAppID ?? process.sandboxAppID, lineage: process.lineage, connection: stream.client)
    }

    /// The process has no streams left: its pid may be reused by another.
    mutating func forget(_ pid: Int32) { known[pid] = nil }

    mutating func forgetAll() { known.removeAll() }
}
