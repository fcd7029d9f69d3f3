/// The media players we paused over MPRIS for an interruption and still owe a `Play`, kept in
/// the state dir beside the enforcement journal: a pause is a change to the desktop that must
/// not outlive the daemon, and unlike a link it does not die with our connection. The next
/// start reads it and plays (or, if the call is still going, adopts) what a crashed run left
/// paused.
///
/// A file of its own: the enforcement journal belongs to the PipeWire backend and is cleared
/// when PipeWire restarts, while a player's pause lives on the session bus and outlasts that.
struct MPRISPauseJournal: JournalContents {
    static let fileName = "mpris-pauses.json"

    /// One player we pressed `Pause` on while it was Playing.
    struct PausedPlayer: Codable, Hashable, Comparable, Sendable {
        /// Its well-known name (`org.mpris.MediaPlayer2.mpv`), what `Play` is pressed on.
        var busName: String
        /// The connection that owned the name (`:1.42`). The bus never reuses a unique name,
        /// so the same unique name later is the very same player connection.
        var uniqueName: String
        /// Its process, checked too: a restarted bus daemon starts its unique names over.
        var processID: Int32?

        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.uniqueName, lhs.busName) < (rhs.uniqueName, rhs.busName)
        }

        /// True when `player` is this same player connection (not a newcomer under the name).
        func isSame(as player: MPRISPlayer) -> Bool {
            player.busName == busName && player.uniqueName == uniqueName
                && (processID == nil || player.processID == nil || player.processID == processID)
        }
    }

    /// Sorted, so the file only changes when the set does.
    var players: [PausedPlayer] = []

    var isEmpty: Bool { players.isEmpty }
}
