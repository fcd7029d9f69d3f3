import SessionPolicy

/// What the bus side hears from the coordinator, set by the D-Bus service and the Now Playing
/// player and called on the loop: hooks, so the coordinator knows neither.
struct BusHooks {
    /// Every decision after it is carried out: the D-Bus service tells explicit sessions
    /// (interruption, route change, hints) and `monitor` watchers from here. The decisions of an
    /// audio server event are handed over in the loop's next turn, after what the event's step
    /// sent to the server has gone out: a call that cuts off a hundred streams is heard before
    /// the bus thread wakes to announce it (on two cores it took the core the loop needed).
    /// Order is kept.
    var decision: ((PolicyDecision) -> Void)?
    /// Hands a media control (`Play`, `Next`, ...) to an explicit session's app; false when the
    /// session is not one.
    var remoteCommand: ((String, SessionID) -> Bool)?
    /// The current media player, for `org.mpris.MediaPlayer2.audiosession`, which shows it and
    /// forwards media keys to it (MPRIS/NowPlayingPlayer.swift): it may have changed.
    var nowPlayingChanged: ((NowPlaying) -> Void)?
}

/// Whether the audio server is there, and whether it was before (a second `attached` is the
/// graph restored).
enum ServerAttachmentState {
    case never, attached, lost
}
