#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The directories rules are read from, lowest precedence first:
/// shipped < `/etc/audiosession/policy-rules.d` < `$XDG_CONFIG_HOME/audiosession/policy-rules.d`
/// < each `--rules DIR`, in the order given.
public struct RuleLocations: Hashable, Sendable {
    /// The shipped defaults (must exist).
    public var shipped: String
    /// The administrator's overrides (may be missing).
    public var system: String
    /// The user's overrides (may be missing); `nil` when no home is known.
    public var user: String?
    /// Directories added on the command line (may be missing).
    public var extra: [String]

    public init(shipped: String, system: String = RuleLocations.systemDirectory, user: String?, extra: [String] = []) {
        self.shipped = shipped
        self.system = system
        self.user = user
        self.extra = extra
    }

    public static let systemDirectory = "/etc/audiosession/policy-rules.d"
    public static let installedShippedDirectory = "/usr/share/audiosession/policy-rules"
    /// Overrides where the shipped defaults are (tests, packaging, running from a checkout).
    public static let shippedDirectoryVariable = "AUDIOSESSION_RULES_DIR"

    /// Every directory, lowest precedence first.
    public var directories: [String] { [shipped, system] + (user.map { [$0] } ?? []) + extra }

    /// The standard locations for this process.
    public static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executablePath: String? = nil,
        extra: [String] = []
    ) -> RuleLocations {
        RuleLocations(
            shipped: shippedDirectory(environment: environment, executablePath: executablePath ?? currentExecutablePath()),
            user: userDirectory(environment: environment),
            extra: extra)
    }

    /// `$AUDIOSESSION_RULES_DIR`; else `<repo>/policy-rules` when running from a build
    /// directory inside a checkout (`<repo>/.build/<config>/audiosessiond`); else
    /// `<prefix>/share/audiosession/policy-rules` beside `<prefix>/bin/audiosessiond` when it
    /// exists (`make install PREFIX=...`); else the installed `/usr/share/audiosession/policy-rules`.
    public static func shippedDirectory(environment: [String: String], executablePath: String?) -> String {
        if let configured = environment[shippedDirectoryVariable], !configured.isEmpty { return configured }
        if let executablePath, let checkout = checkoutRules(above: executablePath) { return checkout }
        if let executablePath, let prefixed = prefixRules(beside: executablePath) { return prefixed }
        return installedShippedDirectory
    }

    /// `<prefix>/share/audiosession/policy-rules` for an executable in `<prefix>/bin` (symlinks
    /// resolved), when that directory exists: where `make install PREFIX=<prefix>` puts them.
    static func prefixRules(beside executablePath: String) -> String? {
        let bin = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        guard bin.lastPathComponent == "bin" else { return nil }
        let rules = bin.deletingLastPathComponent().appendingPathComponent("share/audiosession/policy-rules").path
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: rules, isDirectory: &isDirectory), isDirectory else { return nil }
        return rules
    }

    /// `$XDG_CONFIG_HOME/audiosession/policy-rules.d`, `XDG_CONFIG_HOME` defaulting to `~/.config`.
    public static func userDirectory(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/audiosession/policy-rules.d"
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.config/audiosession/policy-rules.d"
    }

    /// Walks up from the executable (symlinks resolved) to a directory holding both
    /// `Package.swift` and `policy-rules/`: a repo build, wherever its scratch path is.
    static func checkoutRules(above executablePath: String) -> String? {
        var directory = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        let files = FileManager.default
        for _ in 0..<6 {
            let rules = directory.appendingPathComponent("policy-rules").path
            var isDirectory = false
            if files.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
               files.fileExists(atPath: rules, isDirectory: &isDirectory), isDirectory {
                return rules
            }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { break }
            directory = parent
        }
        return nil
    }

    static func currentExecutablePath() -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first
    }
}
