#if canImport(Glibc)
import Glibc
#endif
import Logging

/// The daemon's log lines on standard error: one `write(2)` per line, so lines from threads
/// never interleave and a line costs one syscall.
///
/// Under systemd (`JOURNAL_STREAM` set) each line starts with its syslog priority (`<6>`) and
/// has no timestamp: the journal stamps and filters lines itself. Elsewhere lines carry a UTC
/// timestamp with milliseconds (UTC: formatting local time makes glibc stat `/etc/localtime`
/// on every line, which showed up in profiles when a call interrupted a hundred streams).
public struct DaemonLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let forJournal: Bool

    public init(label: String, level: Logger.Level, environment: [String: String] = [:]) {
        self.label = label
        self.logLevel = level
        self.forJournal = environment["JOURNAL_STREAM"] != nil
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = forJournal ? "<\(Self.syslogPriority(event.level))>" : Self.timestamp() + " \(event.level) "
        line += "[\(label)] \(event.message)"
        let merged = event.metadata.map { metadata.merging($0) { _, new in new } } ?? metadata
        if !merged.isEmpty {
            line += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        line += "\n"
        LogOutput.standardError.write(line)
    }

    /// sd-daemon(3) priorities: what journald reads from the `<N>` prefix.
    static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// `2026-11-21T11:02:36.123Z`
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = Int(now.tv_nsec / 1_000_000)
        let fraction = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }
}
