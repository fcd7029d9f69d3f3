/// The current media player (the HIG: media controls — on Linux MPRIS and headset buttons — are
/// answered only by the app that is actually the current media player, not by whichever
/// player spoke last).
///
/// It is the session that most recently became active with non-mixable `playback` audio. It
/// stays the current player while paused, interrupted or inactive — its user's Play must still
/// reach it — until another such session becomes active, or it ends or stops being a
/// non-mixable player; then the one before it (still there, still such a player) is current
/// again. Mixable audio (a game, cooperative music, a notification) never takes it over.
struct NowPlayingHistory: Hashable, Sendable {
    /// How many earlier players are remembered to fall back on.
    static let depth = 8

    /// Most recent first; `first` is the current player.
    private(set) var order: [SessionID] = []

    var current: SessionID? { order.first }

    /// A session became active; `isPlayer` says whether it is a non-mixable `playback` session.
    mutating func activated(_ id: SessionID, isPlayer: Bool) {
        guard isPlayer else { return }
        order.removeAll { $0 == id }
        order.insert(id, at: 0)
        if order.count > Self.depth { order.removeLast(order.count - Self.depth) }
    }

    /// Forgets sessions that ended or are no longer players.
    mutating func keep(where isPlayer: (SessionID) -> Bool) {
        order.removeAll { !isPlayer($0) }
    }
}

extension PolicyEngine {
    /// Whether a session is a media player that can be the current one.
    func isMediaPlayer(_ id: SessionID) -> Bool {
        // Read in place: called for every remembered player after every event.
        guard let index = sessions.index(forKey: id) else { return false }
        let configuration = sessions.values[index].configuration
        return configuration.category == .playback && !configuration.isMixable
    }

    /// After each event: the sessions this event activated, in order, then those gone or
    /// changed; a new current player is announced once.
    mutating func updateNowPlaying() {
        let before = nowPlayingHistory.current
        // Taken out while it changes, so that changing it never copies its array.
        var history = nowPlayingHistory
        nowPlayingHistory = NowPlayingHistory()
        for decision in output {
            if case .activated(let id) = decision { history.activated(id, isPlayer: isMediaPlayer(id)) }
        }
        if history.order.contains(where: { !isMediaPlayer($0) }) { history.keep { isMediaPlayer($0) } }
        nowPlayingHistory = history
        if history.current != before { emit(.nowPlayingChanged(history.current)) }
    }

    /// The current media player (``NowPlayingHistory``), if any.
    public var nowPlaying: SessionID? { nowPlayingHistory.current }
}
