import Foundation
import PipeWireSandbox

/// A private speech-dispatcher with espeak-ng on a sandbox's pipewire-pulse or a private
/// PulseAudio server (its pulse output either way): its own socket,
/// configuration and logs in the sandbox, in the foreground (`--run-single`, never the user's
/// autospawned one), driven by `spd-say`. It starts its output modules (`sd_espeak-ng`, and
/// `sd_dummy`) as children; ``stop()`` kills them all by PID.
final class RealSpeech: @unchecked Sendable {
    let process: ManagedProcess
    let socket: URL
    private let environment: [String: String]
    private let logDirectory: URL

    /// `playingThroughAplay`: the default module is speech-dispatcher's generic one
    /// (`sd_generic`), which runs a command per message: espeak-ng writes a WAV, one `aplay`
    /// per chunk plays it (an ALSA client, through PipeWire's plugin), as generic modules do.
    convenience init(in sandbox: PrivatePipeWire, playingThroughAplay: Bool = false) throws {
        try sandbox.startPulse()
        try self.init(
            directory: sandbox.directory, runtimeDirectory: sandbox.runtimeDirectory, logDirectory: sandbox.logDirectory,
            environment: sandbox.environment, playingThroughAplay: playingThroughAplay, spawn: sandbox.spawn)
    }

    /// On a private PulseAudio server.
    convenience init(in server: PrivatePulseAudio) throws {
        try self.init(
            directory: server.directory, runtimeDirectory: server.runtimeDirectory, logDirectory: server.logDirectory,
            environment: server.environment, playingThroughAplay: false, spawn: server.spawn)
    }

    private init(
        directory parent: URL, runtimeDirectory: URL, logDirectory: URL, environment: [String: String], playingThroughAplay: Bool,
        spawn: (String, [String], [String: String]) throws -> ManagedProcess
    ) throws {
        self.environment = environment
        self.logDirectory = logDirectory
        let directory = parent.appendingPathComponent("speech-dispatcher")
        let configuration = directory.appendingPathComponent("config")
        let fileManager = FileManager.default
        try? fileManager.removeItem(at: directory)
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        try fileManager.copyItem(at: URL(fileURLWithPath: "/etc/speech-dispatcher"), to: configuration)
        let conf = configuration.appendingPathComponent("speechd.conf")
        let settings = playingThroughAplay ? """
            AudioOutputMethod "pulse"
            DefaultModule aplay-generic
            AddModule "aplay-generic" "sd_generic" "aplay-generic.conf"
            AddModule "dummy" "sd_dummy" ""

            """ : """
            AudioOutputMethod "pulse"
            DefaultModule espeak-ng
            AddModule "espeak-ng" "sd_espeak-ng" "espeak-ng.conf"
            AddModule "dummy" "sd_dummy" ""

            """
        if playingThroughAplay {
            try #"""
                GenericExecuteSynth "espeak-ng --stdout -v en '$DATA' | aplay -q"
                GenericCmdDependency "espeak-ng"
                AddVoice "en" "MALE1" "en"
                DefaultVoice "en"
                GenericLanguage "en" "en" "utf-8"

                """#.write(to: configuration.appendingPathComponent("modules/aplay-generic.conf"), atomically: true, encoding: .utf8)
        }
        try (settings + String(contentsOf: conf, encoding: .utf8)).write(to: conf, atomically: true, encoding: .utf8)
        socket = directory.appendingPathComponent("speechd.sock")
        process = try spawn(
            "speech-dispatcher",
            ["--run-single", "--timeout", "0", "--communication-method", "unix_socket", "--socket-path", socket.path,
             "--config-dir", configuration.path, "--log-dir", directory.path, "--pid-file", directory.appendingPathComponent("pid").path],
            ["HOME": directory.path, "XDG_CONFIG_HOME": directory.path, "XDG_RUNTIME_DIR": runtimeDirectory.path])
        try waitUntil(timeout: .seconds(10), "speech-dispatcher listens on \(socket.path)") {
            guard process.isRunning else { throw SandboxError.notRunning("speech-dispatcher exited: \(process.errorOutput)") }
            return fileManager.fileExists(atPath: socket.path)
        }
    }

    deinit { stop() }

    /// Says `text` and returns when speech-dispatcher reports it spoken (`spd-say -w`).
    func say(_ text: String, timeout: Duration = .seconds(20)) throws {
        _ = try ManagedProcess.run(
            "spd-say", ["-w", text], environment: environment.merging(["SPEECHD_ADDRESS": "unix_socket:\(socket.path)"]) { $1 },
            logDirectory: logDirectory, timeout: timeout)
    }

    /// Kills speech-dispatcher and its output modules, by PID.
    func stop() {
        let modules = RealBrowser.descendants(of: process.pid)
        process.terminate()
        for pid in modules where kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }
}

/// Festival (festival, festvox-kallpc16k) speaking with the audio command its manual gives: it
/// runs the command, through a shell, for each thing it says — one `aplay` per sentence, an ALSA
/// client whose stream says nothing of speech or of festival.
enum RealFestival {
    /// The arguments that make festival say three sentences, one after another, and exit.
    static let arguments = [
        "--batch",
        "(Parameter.set 'Audio_Method 'Audio_Command)",
        "(Parameter.set 'Audio_Required_Format 'riff)",
        "(Parameter.set 'Audio_Command \"aplay -q $FILE\")",
        "(SayText \"The quick brown fox jumps over the lazy dog.\")",
        "(SayText \"It jumps over it again.\")",
        "(SayText \"Then it rests.\")",
    ]
}
