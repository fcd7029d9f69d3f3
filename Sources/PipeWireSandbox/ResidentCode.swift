import AppProcesses
import Foundation

/// How much of a process's own executable code is resident: what the daemon unmaps at rest.
public enum ResidentCode {
    /// `Rss`, in KiB, of the executable (`r-xp`) mappings of the file `/proc/PID/exe` points to.
    public static func kibibytes(of pid: Int32) throws -> Int {
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        var resident = 0
        var inCode = false
        guard let smaps = ProcFile.text("/proc/\(pid)/smaps", limit: 1 << 24) else {
            throw SandboxError.commandFailed("cannot read /proc/\(pid)/smaps")
        }
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), fields.count >= 5 {
                inCode = fields[1] == "r-xp" && fields.count == 6 && fields[5] == binary
            } else if inCode, fields.first == "Rss:", fields.count >= 2, let kib = Int(fields[1]) {
                resident += kib
            }
        }
        return resident
    }
}

extension ResidentCode {
    /// Waits until the process's resident code is below half of `kibibytes`: a release of it.
    public static func waitUntilReleased(from kibibytes: Int, of pid: Int32, timeout: Duration, _ what: String) throws {
        var now = kibibytes
        try waitUntil(timeout: timeout, "\(what) is unmapped again (resident \(kibibytes) KiB, now \(now))") {
            now = try ResidentCode.kibibytes(of: pid)
            return now < kibibytes / 2
        }
    }
}
