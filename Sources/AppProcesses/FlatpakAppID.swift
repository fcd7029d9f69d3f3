#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Flatpak app a process runs in, if any: `[Application] name=` of the sandbox's
/// `/.flatpak-info`, else the `app-flatpak-<id>-<n>.scope` systemd puts it in.
public enum FlatpakAppID {
    /// - Parameter cgroup: the process's `/proc/<pid>/cgroup` when the caller read it already.
    public static func of(_ pid: Int32, cgroup: String? = nil) -> String? {
        if let info = ProcFile.text("/proc/\(pid)/root/.flatpak-info"),
            let name = applicationName(inFlatpakInfo: info)
        {
            return name
        }
        guard let cgroup = cgroup ?? ProcFile.text("/proc/\(pid)/cgroup") else { return nil }
        return applicationName(inCgroup: cgroup)
    }

    public static func applicationName(inFlatpakInfo info: String) -> String? {
        var inApplication = false
        for line in info.split(separator: "\n") {
            let trimmed = line.trimmingWhitespace()
            if trimmed.hasPrefix("[") {
                inApplication = trimmed == "[Application]"
            } else if inApplication, trimmed.hasPrefix("name=") {
                let name = String(trimmed.dropFirst("name=".count))
                return name.isEmpty ? nil : name
            }
        }
        return nil
    }

    public static func applicationName(inCgroup cgroup: String) -> String? {
        for component in cgroup.split(whereSeparator: { $0 == "/" || $0 == "\n" }) where component.hasPrefix("app-flatpak-") {
            // app-flatpak-org.example.App-12345.scope
            var rest = component.dropFirst("app-flatpak-".count)
            guard rest.hasSuffix(".scope"), let dash = rest.lastIndex(of: "-") else { continue }
            rest = rest[..<dash]
            if !rest.isEmpty { return String(rest) }
        }
        return nil
    }
}
