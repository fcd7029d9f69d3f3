import AppProcesses
import SessionPolicy

/// Reads what an app's identity is made of — its sandbox's app id, its process and their
/// ancestors' executables — once per process: a process that opens stream after stream (a
/// softphone's calls, a game's sounds) costs nothing more on the connection it was read for,
/// and one read of its `stat` on another connection (whose pid may be another process's).
struct AppFactsReader {
    private struct Known {
        /// Which process this is: its pid may be given to another one after it exits.
        var startTime: UInt64
        /// What was read of it (``AppFacts/reading(process:connection:)``).
        var facts: AppFacts

        /// Its facts for a stream: on the stream's connection, with the sandbox id the stream
        /// carries (the portal's) first.
        func facts(for stream: BackendStream) -> AppFacts {
            var facts = self.facts
            facts.connection = stream.client
            if let portal = stream.sandboxAppID { facts.sandboxAppID = portal }
            return facts
        }
    }

    private var known: [Int32: Known] = [:]
    /// The pid each connection was read as (``BackendStream/connectionSerial``): while the
    /// connection exists its process does, so the pid is still that process.
    private var readConnections: [UInt64: Int32] = [:]
    /// Processes remembered at most (a bounded memory: pids come and go).
    static let limit = 256
    /// How a process's parent and start time are read (`/proc/<pid>/stat`).
    private let readStatus: (Int32) -> ProcessAncestry.Status?

    init(readStatus: @escaping (Int32) -> ProcessAncestry.Status? = ProcessAncestry.status(of:)) {
        self.readStatus = readStatus
    }

    mutating func facts(for stream: BackendStream) -> AppFacts {
        guard let pid = stream.processID, pid > 1 else {
            return AppFacts(sandboxAppID: stream.sandboxAppID, connection: stream.client)
        }
        if let serial = stream.connectionSerial, readConnections[serial] == pid, let process = known[pid] {
            return process.facts(for: stream)
        }
        let status = readStatus(pid)
        let process: Known
        if let cached = known[pid], let status, cached.startTime == status.startTime {
            process = cached
        } else {
            process = Known(startTime: status?.startTime ?? 0, facts: AppFacts.reading(process: pid))
            if known.count >= Self.limit { known.removeAll() }
            if status != nil { known[pid] = process }  // a process already gone is not remembered
        }
        if status != nil, let serial = stream.connectionSerial {
            if readConnections.count >= Self.limit { readConnections.removeAll() }
            readConnections[serial] = pid
        }
        return process.facts(for: stream)
    }

    mutating func forgetAll() {
        known.removeAll()
        readConnections.removeAll()
    }
}
