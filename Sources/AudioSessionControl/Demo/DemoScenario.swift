import Foundation
import PipeWireSandbox

/// The scripted scenario `audiosessionctl demo` plays, in three acts, each on its own private
/// server: routes (devices come and go) and enforcement (ducking, interruptions, mixing,
/// silent mode, hardware preferences) on PipeWire, then the same policy on PulseAudio 16. Each step acts like a user or an app would, then waits
/// (with a deadline) until an independent observer sees the daemon's reaction, and prints it.
struct DemoScenario {
    let timeline: DemoTimeline
    let daemonPath: String
    let controlPath: String

    func run() throws {
        let missing = DemoTools.missing()
        guard missing.isEmpty else { throw DemoError.missingTools(missing) }
        timeline.heading("audiosession demo — a private PipeWire with virtual devices; your own audio is untouched.")
        try DemoRoutesAct(timeline: timeline, daemonPath: daemonPath).run()
        try DemoEnforcementAct(timeline: timeline, daemonPath: daemonPath, controlPath: controlPath).run()
        try DemoPulseAudioAct(timeline: timeline, daemonPath: daemonPath, controlPath: controlPath).run()
    }
}

/// The programs the demo runs, found before it starts anything: a missing one is one clear line.
enum DemoTools {
    static let executables = [
        "pipewire", "pipewire-pulse", "pw-cat", "pw-cli", "pw-metadata", "pw-dump", "dbus-daemon", "mpv", "playerctl",
        "paplay", "parec", "pactl",
    ]

    /// Where Debian's mpv-mpris puts the plugin.
    static let mprisPlugin = ["/usr/lib/mpv-mpris/mpris.so", "/etc/mpv/scripts/mpris.so"]
        .first { FileManager.default.fileExists(atPath: $0) }

    /// The missing ones, by package-ish name ("mpv-mpris" for the plugin).
    static func missing() -> [String] {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        var missing = executables.filter { name in
            !path.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
        }
        if mprisPlugin == nil { missing.append("mpv-mpris") }
        return missing
    }
}
