/// What a stream about to start would do to the others, worked out before it starts.
///
/// The server announces a stream (its registry entry, with its role and app) a round-trip
/// before its full description can be read. A call known from that announcement can take its
/// first victim off its device at once, as the call itself will, instead of a round-trip and
/// the whole bookkeeping of the new session later. The forecast is the engine's own judgement,
/// made on a copy of it: the same rules, in the same order, with nothing changed.
extension PolicyEngine {
    /// The sessions a new implicit session described by `descriptor` would interrupt by
    /// unlinking their streams if its stream `stream` started now, in the order the engine
    /// interrupts them. Empty when it would interrupt nobody that way (it ducks or mixes, or its
    /// victims are paused through their players).
    public func sessionsUnlinked(byNewSession descriptor: SessionDescriptor, starting stream: StreamID, at time: Timestamp) -> [SessionID] {
        // Only contenders are interrupted: with none, no copy is needed to know.
        guard descriptor.kind == .implicit, streamOwners[stream] == nil, !contenders.isEmpty else { return [] }
        var trial = self
        let probe = SessionID(UInt64.max)
        guard trial.sessions[probe] == nil else { return [] }
        _ = trial.handle(.sessionCreated(probe, descriptor), at: time)
        return trial.handle(.streamStarted(probe, stream), at: time).compactMap { decision in
            guard case .interruptionBegan(let victim, _, .unlink) = decision, victim != probe else { return nil }
            return victim
        }
    }
}
