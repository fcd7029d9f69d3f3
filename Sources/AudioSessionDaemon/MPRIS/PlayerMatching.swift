/// Which media player plays a stream: the same process, a process related to it by descent
/// (browsers and Electron apps play from child processes, and some players from a helper
/// parent), or the same Flatpak app. Pure: the process tree comes in as a function.
enum PlayerMatching {
    /// The pids from `pid` up to (not including) init, `pid` first.
    typealias Ancestry = (Int32) -> [Int32]

    static func player(_ player: MPRISPlayer, plays stream: BackendStream, ancestry: Ancestry) -> Bool {
        if let appID = player.flatpakAppID, !appID.isEmpty, stream.sandboxAppID == appID {
            return true
        }
        guard let playerPID = player.processID, playerPID > 1 else { return false }
        let streamPID = stream.processID ?? stream.statedProcessID
        guard let streamPID, streamPID > 1 else { return false }
        if playerPID == streamPID { return true }
        return ancestry(streamPID).contains(playerPID) || ancestry(playerPID).contains(streamPID)
    }

    /// The players of any of `streams`, by bus name.
    static func players(
        of streams: [BackendStream], among players: [String: MPRISPlayer], ancestry: Ancestry
    ) -> Set<String> {
        var found = Set<String>()
        for (name, player) in players where streams.contains(where: { self.player(player, plays: $0, ancestry: ancestry) }) {
            found.insert(name)
        }
        return found
    }
}
