/// Pressing `Pause` / `Play` on a player: what the loop side needs of the bus side. The
/// coordinator's unit tests press a recording fake instead of a session bus.
protocol MPRISButtons: Sendable {
    /// `member` (`Pause` or `Play`) on the player that owns `busName`; throws on an error reply
    /// or when the player does not answer in time.
    func press(_ member: String, on busName: String) async throws
}

extension MPRISController: MPRISButtons {}
