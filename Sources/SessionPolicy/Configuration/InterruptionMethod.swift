/// How an interruption (or a resume, or a pause on unplug) reaches a session.
public enum InterruptionMethod: String, CaseIterable, Hashable, Sendable, WireNamed {
    /// Our session API (D-Bus `Interruption` signal): only explicit sessions have it.
    case sessionAPI
    /// MPRIS `Pause` / `Play` on the app's media player.
    case mpris
    /// Remove the stream's links (the app's clock stops; WirePlumber's "cork").
    case unlink
    /// Mute our own volume factor (never the user's volume).
    case mute

    public var wireName: String { rawValue }
}
