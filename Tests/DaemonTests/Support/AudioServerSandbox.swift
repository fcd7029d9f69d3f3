import Foundation
import PipeWireSandbox

/// What the real-app launchers (``RealLinphone``, ``RealDesktopPlayer``) need of a private audio
/// server: a directory of its own, the environment of its clients, and clients started (and
/// stopped) by it. Both servers of the tests give that: a private PipeWire, and a pure
/// PulseAudio with its ALSA programs on ALSA's pulse plugin (``PulseAudioWithALSA``).
protocol AudioServerSandbox: AnyObject {
    var directory: URL { get }
    var logDirectory: URL { get }
    var environment: [String: String] { get }
    func spawn(_ executable: String, _ arguments: [String], extraEnvironment: [String: String]) throws -> ManagedProcess
}

extension AudioServerSandbox {
    /// Starts a client with the server's environment only.
    func spawn(_ executable: String, _ arguments: [String] = []) throws -> ManagedProcess {
        try spawn(executable, arguments, extraEnvironment: [:])
    }
}

extension PrivatePipeWire: AudioServerSandbox {}
extension PrivatePulseAudio: AudioServerSandbox {}

/// A private PulseAudio whose clients' ALSA default device is PulseAudio (ALSA's pulse plugin,
/// Debian's libasound2-plugins), as on a PulseAudio desktop: an ALSA program (aplay, arecord,
/// linphonec, TiMidity++) plays and records through the server. Only the sandbox's clients
/// see it (`ALSA_CONFIG_PATH`: the system's alsa.conf, then a hook loading a file in the
/// sandbox that names pulse the default); no ~/.asoundrc is read or written (HOME is the
/// sandbox's).
final class PulseAudioWithALSA: AudioServerSandbox, @unchecked Sendable {
    let pulse: PrivatePulseAudio
    /// The sandbox's ALSA configuration, after the system's.
    let alsaEnvironment: [String: String]

    init(_ pulse: PrivatePulseAudio) throws {
        self.pulse = pulse
        let configuration = pulse.directory.appendingPathComponent("asound-pulse.conf")
        try """
            pcm.!default {
                type pulse
            }
            ctl.!default {
                type pulse
            }

            """.write(to: configuration, atomically: true, encoding: .utf8)
        // The system's alsa.conf loads alsa.conf.d (where pipewire-alsa makes PipeWire the
        // default) from its first hook, run after every file of ALSA_CONFIG_PATH is read: a
        // default set in a file of the path would be replaced. A second hook, run after that
        // one, loads ours.
        let hook = pulse.directory.appendingPathComponent("asound-hook.conf")
        try """
            @hooks.1 {
                func load
                files [ "\(configuration.path)" ]
                errors false
            }

            """.write(to: hook, atomically: true, encoding: .utf8)
        alsaEnvironment = ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(hook.path)"]
    }

    var directory: URL { pulse.directory }
    var logDirectory: URL { pulse.logDirectory }
    var environment: [String: String] { pulse.environment.merging(alsaEnvironment) { $1 } }

    func spawn(_ executable: String, _ arguments: [String], extraEnvironment: [String: String]) throws -> ManagedProcess {
        try pulse.spawn(executable, arguments, extraEnvironment: alsaEnvironment.merging(extraEnvironment) { $1 })
    }
}
