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
        guard let state = sessions[id] else { return false }
        return state.configuration.category == .playback && !state.configuration.isMixable
    }

    /// After each event: the sessions this event activated, in order, then those gone or
    /// changed; a new current player is announced once.
    mutating func updateNowPlaying() {
        var history = nowPlayingHistory
        let before = history.current
        for decision in output {
            if case .activated(let id) = decision { history.activated(id, isPlayer: isMediaPlayer(id)) }
        }
        history.keep { isMediaPlayer($0) }
        nowPlayingHistory = history
        if history.current != before { emit(.nowPlayingChanged(history.current)) }
    }

    /// The current media player (``NowPlayingHistory``), if any.
    public var nowPlaying: SessionID? { nowPlayingHistory.current }
}
