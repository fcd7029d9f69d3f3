import Foundation
import PipeWireSandbox

/// A private headless X server: Xvfb on a display it picks free itself (`-displayfd`: it
/// writes the number once it accepts connections), never the user's. Started as a client of
/// the sandbox, so the sandbox stops it by PID too; ``stop()`` stops it first.
final class PrivateXServer: @unchecked Sendable {
    let process: ManagedProcess
    /// `:N`, for `DISPLAY`.
    let display: String

    init(in sandbox: any AudioServerSandbox) throws {
        // No TCP; the local socket only. -displayfd 1: the number on its standard output.
        process = try sandbox.spawn("Xvfb", ["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "1024x768x24"])
        let started = process
        var number: String?
        do {
            try waitUntil(timeout: .seconds(10), "Xvfb says its display") {
                guard started.isRunning else { throw SandboxError.notRunning("Xvfb exited: \(started.errorOutput)") }
                let output = started.output
                guard output.hasSuffix("\n"), let line = output.split(separator: "\n").first, Int(line) != nil else { return false }
                number = String(line)
                return true
            }
        } catch {
            started.terminate()
            throw error
        }
        display = ":\(number ?? "")"
    }

    deinit { stop() }

    func stop() { process.terminate() }
}

/// A real desktop music player with a GUI toolkit: Audacious (its GTK interface, Debian's
/// default) on a private X server, playing a file through pipewire-pulse, its MPRIS player
/// (the mpris2 plugin, enabled by default) on the test's private session bus. Its home and XDG
/// directories are the sandbox's: the user's configuration is never read or written.
final class RealDesktopPlayer: @unchecked Sendable {
    let x: PrivateXServer
    let process: ManagedProcess
    /// Its MPRIS name for `playerctl --player=` (`org.mpris.MediaPlayer2.<name>`).
    let name = "audacious"
    private let environment: [String: String]
    private let logDirectory: URL

    /// Starts Xvfb, then Audacious playing `file` over and over.
    init(playing file: URL, in sandbox: any AudioServerSandbox, bus: PrivateSessionBus) throws {
        x = try PrivateXServer(in: sandbox)
        let home = sandbox.directory.appendingPathComponent("audacious-home")
        try? FileManager.default.removeItem(at: home)
        let config = home.appendingPathComponent(".config")
        let settings = config.appendingPathComponent("audacious")
        try FileManager.default.createDirectory(at: settings, withIntermediateDirectories: true)
        // Repeat the playlist: the tone plays for as long as the test needs.
        try "[audacious]\nrepeat=TRUE\n".write(to: settings.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        let own: [String: String] = [
            "HOME": home.path, "XDG_CONFIG_HOME": config.path,
            "XDG_DATA_HOME": home.appendingPathComponent(".local/share").path,
            "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path,
            "DISPLAY": x.display, "DBUS_SESSION_BUS_ADDRESS": bus.address,
        ]
        environment = sandbox.environment.merging(own) { $1 }
        logDirectory = sandbox.logDirectory
        do {
            // A file on the command line replaces the playlist and plays it.
            process = try sandbox.spawn("audacious", [file.path], extraEnvironment: own)
        } catch {
            x.stop()
            throw error
        }
    }

    deinit { stop() }

    /// `playerctl --player=audacious status`, read through the test's bus: Playing, Paused, Stopped.
    func status() throws -> String {
        try ManagedProcess.run(
            "playerctl", ["--player=\(name)", "status"], environment: environment, logDirectory: logDirectory
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The names of the top-level windows on its X server (`xwininfo -root -tree`): its GUI is
    /// up when Audacious's main window is mapped there.
    func windowNames() throws -> [String] {
        let tree = try ManagedProcess.run(
            "xwininfo", ["-root", "-tree", "-display", x.display], environment: environment, logDirectory: logDirectory)
        // Lines like `0x400007 "Audacious": ("audacious" "Audacious")  400x300+0+0  +0+0`.
        return tree.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\"", omittingEmptySubsequences: false)
            return parts.count >= 3 ? String(parts[1]) : nil
        }
    }

    /// Stops Audacious, then its X server, by PID.
    func stop() {
        process.terminate()
        x.stop()
    }
}
