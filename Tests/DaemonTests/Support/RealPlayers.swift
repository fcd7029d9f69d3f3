import Foundation
import PipeWireSandbox
import Testing

/// Real command-line players and recorders that set no role, each on its own audio path, as a
/// user starts them (docs/real-apps.md). `start` returns the process; the sandbox stops it.
struct RealPlayer: CustomTestStringConvertible, Sendable {
    /// What the test calls it.
    var name: String
    var executable: String
    /// `{tone}` is replaced by a WAV and `{mp3}` by an MP3 of the same tone.
    var arguments: [String]
    var environment: [String: String] = [:]
    /// What the daemon should make of it.
    var category: String
    var priorityClass: String = "media"

    var testDescription: String { name }

    func start(in sandbox: PrivatePipeWire, tone: URL) throws -> ManagedProcess {
        let mp3 = tone.deletingPathExtension().appendingPathExtension("mp3")
        if arguments.contains("{mp3}"), !FileManager.default.fileExists(atPath: mp3.path) {
            try sandbox.run("ffmpeg", ["-loglevel", "error", "-y", "-i", tone.path, mp3.path], timeout: .seconds(30))
        }
        let resolved = arguments.map { $0.replacingOccurrences(of: "{tone}", with: tone.path).replacingOccurrences(of: "{mp3}", with: mp3.path) }
        return try sandbox.spawn(executable, resolved, extraEnvironment: environment)
    }

    static let sdlDummyVideo = ["SDL_VIDEODRIVER": "dummy"]

    static let all: [RealPlayer] = [
        RealPlayer(name: "mpv over ALSA", executable: "mpv", arguments: ["--no-config", "--no-video", "--ao=alsa", "--loop-file=inf", "--no-terminal", "{tone}"], category: "playback"),
        RealPlayer(name: "mpv over pulse", executable: "mpv", arguments: ["--no-config", "--no-video", "--ao=pulse", "--loop-file=inf", "--no-terminal", "{tone}"], category: "playback"),
        RealPlayer(name: "ffplay over SDL's PipeWire driver", executable: "ffplay", arguments: ["-nodisp", "-loop", "0", "-loglevel", "error", "{tone}"],
            environment: ["SDL_AUDIODRIVER": "pipewire"].merging(sdlDummyVideo) { $1 }, category: "playback"),
        RealPlayer(name: "ffplay over SDL's pulse driver", executable: "ffplay", arguments: ["-nodisp", "-loop", "0", "-loglevel", "error", "{tone}"],
            environment: ["SDL_AUDIODRIVER": "pulseaudio"].merging(sdlDummyVideo) { $1 }, category: "playback"),
        RealPlayer(name: "gst-launch-1.0 with pulsesink", executable: "gst-launch-1.0", arguments: ["-q", "filesrc", "location={tone}", "!", "wavparse", "!", "audioconvert", "!", "pulsesink"], category: "playback"),
        RealPlayer(name: "gst-launch-1.0 with pipewiresink", executable: "gst-launch-1.0", arguments: ["-q", "filesrc", "location={tone}", "!", "wavparse", "!", "audioconvert", "!", "pipewiresink"], category: "playback"),
        RealPlayer(name: "mpg123 over pulse", executable: "mpg123", arguments: ["-q", "-o", "pulse", "--loop", "-1", "{mp3}"], category: "playback"),
        RealPlayer(name: "sox play over ALSA", executable: "play", arguments: ["-q", "{tone}"], category: "playback"),
        RealPlayer(name: "aplay", executable: "aplay", arguments: ["-q", "{tone}"], category: "soloAmbient"),
        RealPlayer(name: "paplay", executable: "paplay", arguments: ["{tone}"], category: "soloAmbient"),
        RealPlayer(name: "espeak-ng speaking by itself (pulse)", executable: "espeak-ng",
            arguments: ["-a", "150", "The quick brown fox jumps over the lazy dog, and over it again, and again, and again."],
            category: "playback", priorityClass: "navigation"),
        RealPlayer(name: "arecord", executable: "arecord", arguments: ["-q", "-f", "S16_LE", "-r", "48000", "-c", "1", "-d", "30", "/dev/null"], category: "record"),
        RealPlayer(name: "chocolate-doom over SDL's pulse driver", executable: "/usr/games/chocolate-doom",
            arguments: ["-iwad", "/usr/share/games/doom/freedoom1.wad", "-nomusic", "-nograbmouse"],
            environment: ["SDL_AUDIODRIVER": "pulseaudio"].merging(sdlDummyVideo) { $1 }, category: "ambient"),
        RealPlayer(name: "chocolate-doom over SDL's PipeWire driver", executable: "/usr/games/chocolate-doom",
            arguments: ["-iwad", "/usr/share/games/doom/freedoom1.wad", "-nomusic", "-nograbmouse"],
            environment: ["SDL_AUDIODRIVER": "pipewire"].merging(sdlDummyVideo) { $1 }, category: "ambient"),
    ]
}
