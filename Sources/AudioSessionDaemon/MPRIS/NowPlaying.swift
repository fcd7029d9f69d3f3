import SessionPolicy

/// The current media player, as the Now Playing player shows it and forwards controls to:
/// handed to it after every step that changed it, so the player reads nothing of the
/// coordinator's.
struct NowPlaying: Equatable, Sendable {
    /// The engine's now-playing session (``PolicyEngine/nowPlaying``).
    var session: SessionID?
    /// Its app, while the session exists.
    var app: String?
    /// `PlaybackStatus`: its MPRIS players' own when it has any, else what its activity says.
    var status: String
    /// Its MPRIS players, by bus name, sorted.
    var playerNames: [String]

    static let none = NowPlaying(session: nil, app: nil, status: "Stopped", playerNames: [])

    /// `session`'s now, from its snapshot (nil: gone), its MPRIS players and the statuses of
    /// those that told one, by bus name.
    init(session: SessionID, snapshot: SessionSnapshot?, players: Set<String>, statuses: [String: PlaybackStatus]) {
        self.session = session
        app = snapshot?.app
        playerNames = players.sorted()
        if !statuses.isEmpty {
            let statuses = Set(statuses.values)
            status = statuses.contains(.playing) ? "Playing" : statuses.contains(.paused) ? "Paused" : "Stopped"
        } else {
            status = switch snapshot?.activity {
            case .active: "Playing"
            case .interrupted: "Paused"
            default: snapshot == nil ? "Stopped" : "Paused"
            }
        }
    }

    private init(session: SessionID?, app: String?, status: String, playerNames: [String]) {
        self.session = session
        self.app = app
        self.status = status
        self.playerNames = playerNames
    }
}
