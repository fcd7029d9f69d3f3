/// What part a program plays in an app's process tree, told by the file name of the executable
/// it runs (which the kernel vouches for, unlike anything a stream or an app claims).
///
/// It only decides whose helper a sound tool is (``AppIdentity``), never how anything is
/// classified: the rules do that.
public enum ProgramKind: Hashable, Sendable {
    /// A command-line tool that plays or records what it is handed: a program that runs one is
    /// using it as its sound device (a speech engine's `aplay` per chunk, a script's event sound).
    case soundTool
    /// A shell or a wrapper that only runs another program (`sh -c "espeak-ng | aplay"`,
    /// `timeout 5 paplay`): it is nobody's app while a program above it ran it.
    case passThrough
    /// Anything else: a program that can be an app.
    case program

    public init(programName: String) {
        if Self.soundTools.contains(programName) {
            self = .soundTool
        } else if Self.passThroughs.contains(programName) {
            self = .passThrough
        } else {
            self = .program
        }
    }

    /// ALSA's, PulseAudio's, PipeWire's, sox's, libcanberra's, FFmpeg's, mpg123's and
    /// vorbis-tools' players and recorders, and the command-line speech engines that speak
    /// through them or by themselves.
    static let soundTools: Set<String> = [
        "aplay", "arecord", "paplay", "parec", "parecord", "pacat", "pw-play", "pw-record", "pw-cat",
        "play", "rec", "sox", "canberra-gtk-play", "ffplay", "mpg123", "ogg123", "espeak", "espeak-ng",
    ]

    /// Shells and the wrappers scripts put in front of a command.
    static let passThroughs: Set<String> = [
        "sh", "dash", "bash", "zsh", "ksh", "mksh", "fish", "busybox",
        "env", "timeout", "nice", "ionice", "nohup", "stdbuf", "chrt", "taskset", "xargs",
    ]
}
