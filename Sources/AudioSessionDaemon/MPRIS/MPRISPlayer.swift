/// One media player on the session bus (`org.mpris.MediaPlayer2.*`), as far as we need it to
/// pause and resume an app that knows nothing of audio sessions.
struct MPRISPlayer: Hashable, Sendable {
    /// Its well-known name, `org.mpris.MediaPlayer2.mpv` (what we call methods on).
    var busName: String
    /// The connection that owns the name (`:1.42`): signals carry this, not the well-known name.
    var uniqueName: String
    /// The owner's process (`GetConnectionUnixProcessID`), to find the app's streams.
    var processID: Int32?
    /// The Flatpak app id of that process, matched against `pipewire.access.portal.app_id`.
    var flatpakAppID: String?
    var status: PlaybackStatus
}

/// `org.mpris.MediaPlayer2.Player.PlaybackStatus`.
enum PlaybackStatus: String, Hashable, Sendable {
    case playing = "Playing"
    case paused = "Paused"
    case stopped = "Stopped"

    /// Unknown values (a misbehaving player) count as stopped: we never press play on them.
    init(wire: String) {
        self = PlaybackStatus(rawValue: wire) ?? .stopped
    }
}
