#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SessionPolicy

/// Walks `/proc` up from a process to init: which processes a stream's app descends from.
public enum ProcessAncestry {
    public static func chain(from pid: Int32, limit: Int = 64) -> [Int32] {
        walk(from: pid, limit: limit).map(\.pid)
    }

    /// The chain with each process's executable and process group: what an app's identity is
    /// made of.
    public static func lineage(from pid: Int32, limit: Int = 64) -> [ProcessEntry] {
        walk(from: pid, limit: limit).map {
            ProcessEntry(pid: $0.pid, executable: executable(of: $0.pid) ?? "", processGroup: $0.status?.processGroup)
        }
    }

    /// Each process from `pid` up to (not including) init, with its `stat` as read on the way.
    private static func walk(from pid: Int32, limit: Int) -> [(pid: Int32, status: Status?)] {
        var walked: [(pid: Int32, status: Status?)] = []
        var current = pid
        while current > 1, walked.count < limit {
            let status = status(of: current)
            walked.append((current, status))
            guard let parent = status?.parent, parent != current else { break }
            current = parent
        }
        return walked
    }

    /// The parent pid from `/proc/<pid>/stat`.
    public static func parent(of pid: Int32) -> Int32? { status(of: pid)?.parent }

    /// A process's parent, process group and start time (clock ticks after boot): a pid the
    /// kernel gave to another process since has another start time.
    public struct Status: Equatable, Sendable {
        public var parent: Int32
        public var startTime: UInt64
        /// The job it belongs to: a shell, a terminal or a launcher that detaches gives each
        /// program it starts a group of its own; what that program runs stays in it.
        public var processGroup: Int32

        public init(parent: Int32, startTime: UInt64, processGroup: Int32 = 0) {
            self.parent = parent
            self.startTime = startTime
            self.processGroup = processGroup
        }
    }

    /// Fields 4 (ppid), 5 (pgrp) and 22 (starttime) of `/proc/<pid>/stat`, after the
    /// parenthesised command name (which may hold spaces and parentheses itself).
    public static func status(of pid: Int32) -> Status? {
        guard let stat = ProcFile.text("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let parent = Int32(fields[1]), let group = Int32(fields[2]), let start = UInt64(fields[19]) else {
            return nil
        }
        return Status(parent: parent, startTime: start, processGroup: group)
    }

    /// The target of `/proc/<pid>/exe` (another user's process: nil).
    public static func executable(of pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
