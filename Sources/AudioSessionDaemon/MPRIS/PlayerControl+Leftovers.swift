import SessionPolicy

/// MPRIS pauses must not outlive the daemon. A pause we press is journalled until we
/// no longer owe a Play (``MPRISPauses``, ``MPRISPauseJournal``); this is what undoes it:
///
/// - **Exit** (SIGTERM): ``mprisResumeBeforeExit(_:)`` presses Play on every player we paused
///   that is still Paused, and the daemon waits (bounded) for the answers.
/// - **Start after a crash**, and **PipeWire back** after it went away: the pauses whose
///   sessions are not known are *leftovers*. Once the graph and the players are known,
///   ``mprisDecideLeftovers(in:)`` drops those whose player is gone or no longer Paused, and
///   asks the engine about the rest: their streams count as running again (the pause was ours,
///   not their user's). If the policy still interrupts the session (the call goes on), the
///   pause is adopted and the interruption's end presses Play; otherwise Play is pressed now.
///
/// The decisions stay the engine's; this is bookkeeping and mechanism.
extension PlayerControl {
    // MARK: - Hooks

    /// The graph is there and its streams are known (`attached`, first or after a restart).
    func mprisGraphAttached(in context: Context) -> [FollowUp] {
        mprisDecideLeftovers(in: context)
    }

    /// PipeWire went away: the sessions are about to go, not the pauses we pressed. They become
    /// leftovers (journalled all along), decided when the graph is back.
    func mprisGraphLost() {
        guard !mpris.pauses.isEmpty else { return }
        let owed = mpris.owedPlays.players
        // Leftovers first: the journal never misses an owed Play, not even between two writes.
        mpris.leftovers = owed
        for pause in mpris.pauses.values { pause.timer?.cancel() }
        mpris.pauses = [:]
        if !owed.isEmpty { logger.info("PipeWire gone: \(owed.count) MPRIS pauses of ours are decided when it is back") }
    }

    /// Every player on the bus at start has been reported.
    func mprisPlayersDiscovered(in context: Context) -> [FollowUp] {
        mpris.discovered = true
        return mprisDecideLeftovers(in: context)
    }

    // MARK: - Leftovers

    /// Plays or adopts each leftover, once both the graph and the players are known: what the
    /// policy wants of a session can only be asked with its streams and its players there.
    func mprisDecideLeftovers(in context: Context) -> [FollowUp] {
        guard mpris.discovered, context.isAttached, !mpris.stopping else { return [] }
        var followUps: [FollowUp] = []
        for entry in mpris.leftovers {
            // Adopted meanwhile by an interruption of its session (mprisPauseForInterruption).
            guard mpris.leftovers.contains(entry) else { continue }
            guard let player = mpris.players[entry.busName], entry.isSame(as: player) else {
                logger.info("MPRIS: \(entry.busName) (\(entry.uniqueName)), paused by us before, is gone: nothing to resume")
                mpris.leftovers.removeAll { $0 == entry }
                continue
            }
            guard player.status == .paused else {
                // Played or stopped by its user since (a player whose status cannot be read
                // within the call timeout counts as Stopped: never pressed).
                logger.info("MPRIS: \(entry.busName), paused by us before, is \(player.status.rawValue) now: not ours to resume")
                mpris.leftovers.removeAll { $0 == entry }
                continue
            }
            followUps += mprisDecide(entry, player, in: context)
        }
        return followUps
    }

    /// A player a previous run (or this one, before PipeWire went away) left paused.
    func mprisIsLeftover(_ player: MPRISPlayer) -> Bool {
        mpris.leftovers.contains { $0.isSame(as: player) }
    }

    /// Leftovers the pause of an interrupted session now owes its Play: they are journalled
    /// with the pause from here on, and the interruption's end plays them.
    func mprisForgetLeftovers(adoptedBy pause: MPRISPause, of id: SessionID) {
        guard !mpris.leftovers.isEmpty else { return }
        let owed = Set(pause.players.values.filter { $0.isOwed(in: pause.phase) }.map(\.identity))
        for entry in mpris.leftovers where owed.contains(entry) {
            logger.info("MPRIS: \(entry.busName) was left paused by us and \(id) is still interrupted: the pause is ours again")
        }
        mpris.leftovers.removeAll { owed.contains($0) }
    }

    private func mprisDecide(_ entry: MPRISPauseJournal.PausedPlayer, _ player: MPRISPlayer, in context: Context) -> [FollowUp] {
        let name = player.busName
        let ownSessions = context.sessions.sessionIDs.filter { mprisPlayerNames(of: $0, in: context.sessions).contains(name) }
        guard !ownSessions.isEmpty else {
            // No stream of it in the graph: nothing for the policy to weigh. The stream its Play
            // starts is arbitrated like any other (and paused again if a call is going on).
            logger.info("MPRIS: \(name) was left paused by us and has no stream now: playing it again")
            mprisPlayLeftover(entry)
            return []
        }
        // Ask the engine: the pause was ours, so the streams it paused count as running. What it
        // answers is carried out before the rest (``mprisDecideAsked(_:sessions:interrupted:)``).
        var followUps: [FollowUp] = []
        for id in ownSessions {
            for record in context.sessions.streams(of: id) where !record.reportedActive {
                followUps += [.markReported(record.stream.id, active: true), .submit(.streamStarted(id, record.stream.id))]
            }
        }
        return followUps + [.then(.leftoverAsked(entry, sessions: ownSessions))]
    }

    /// The rest of deciding a leftover, once the engine heard its sessions' streams run:
    /// `interrupted` are those of `sessions` the policy interrupts now.
    func mprisDecideAsked(_ entry: MPRISPauseJournal.PausedPlayer, sessions ownSessions: [SessionID], interrupted: [SessionID]) {
        // Interrupted over MPRIS on the spot: mprisPauseForInterruption took it as ours.
        guard mpris.leftovers.contains(entry), let player = mpris.players[entry.busName], entry.isSame(as: player),
            let first = ownSessions.first
        else { return }
        if !interrupted.isEmpty {
            // Interrupted by another method (or since before the player was known): the
            // interruption's end presses Play all the same.
            for id in interrupted {
                mprisAdopt(player, into: id)
                if let pause = mpris.pauses[id] { mprisForgetLeftovers(adoptedBy: pause, of: id) }
            }
        } else {
            mprisAdopt(player, into: first)
            mpris.leftovers.removeAll { $0 == entry }
            logger.info("MPRIS: \(player.busName) was left paused by us and nothing interrupts \(first) now: playing it again")
            mprisEndPause(first, resume: true)
        }
    }

    /// Makes a Paused player part of a session's pause, as if we had just paused it.
    private func mprisAdopt(_ player: MPRISPlayer, into id: SessionID) {
        var pause = mpris.pauses[id] ?? MPRISPause(began: now)
        if pause.phase == .resuming || pause.players[player.busName]?.isOwed(in: pause.phase) != true {
            pause.players[player.busName] = PlayerPause(player, wasPlaying: true)
        }
        if !pause.awaitingPause {
            pause.phase = .paused
            pause.timer?.cancel()
            pause.timer = nil
        }
        mpris.pauses[id] = pause
    }

    /// Play on a leftover with no session; it stays journalled until the player answered.
    private func mprisPlayLeftover(_ entry: MPRISPauseJournal.PausedPlayer) {
        let buttons = mpris.buttons
        let perform = mpris.perform
        let logger = self.logger
        Task {
            do { try await buttons.press("Play", on: entry.busName) } catch {
                logger.warning("MPRIS: \(entry.busName) refused Play: \(error)")
            }
            perform { [weak self] in self?.mpris.leftovers.removeAll { $0 == entry } }
        }
    }

    // MARK: - Exit

    /// Before exit: Play on every player we paused for an interruption that is still Paused (or
    /// whose Pause is still on its way), and on the leftovers still Paused. Never on a player
    /// its user took over. Nothing is pressed after this. `done` runs on the loop once every
    /// Play was answered or timed out (the buttons' own call timeout bounds it); a Play that was
    /// not answered stays journalled for the next start.
    func mprisResumeBeforeExit(_ done: @escaping @Sendable () -> Void) {
        guard !mpris.stopping else { return done() }
        mpris.stopping = true
        var plays: [MPRISPauseJournal.PausedPlayer] = []
        for id in mpris.pauses.keys.sorted() {
            guard let pause = mpris.pauses[id] else { continue }
            pause.timer?.cancel()
            mpris.pauses[id]?.timer = nil
            for (name, player) in pause.players.sorted(by: { $0.key < $1.key }) where player.isOwed(in: pause.phase) {
                guard mpris.players[name]?.status == .paused || player.awaitingPause else {
                    mpris.pauses[id]?.players[name] = nil  // played already (our Play landed), or stopped
                    continue
                }
                mpris.pauses[id]?.players[name]?.awaitingPause = false
                mpris.pauses[id]?.players[name]?.awaitingPlay = true
                mpris.pauses[id]?.phase = .resuming
                if !plays.contains(player.identity) { plays.append(player.identity) }  // one player, two sessions
            }
        }
        for entry in mpris.leftovers {
            if let player = mpris.players[entry.busName], entry.isSame(as: player), player.status == .paused,
                !plays.contains(entry)
            {
                plays.append(entry)
            }
        }
        guard !plays.isEmpty else { return done() }
        logger.info("stopping: playing \(plays.map(\.busName).joined(separator: ", ")) again over MPRIS (paused by us)")
        let buttons = mpris.buttons
        let perform = mpris.perform
        let logger = self.logger
        Task {
            let answered = await withTaskGroup(of: MPRISPauseJournal.PausedPlayer?.self) { group in
                for entry in plays {
                    group.addTask {
                        do {
                            try await buttons.press("Play", on: entry.busName)
                            return entry
                        } catch {
                            logger.warning("stopping: \(entry.busName) did not answer Play (\(error)); the next start tries again")
                            return nil
                        }
                    }
                }
                var answered: [MPRISPauseJournal.PausedPlayer] = []
                for await entry in group { if let entry { answered.append(entry) } }
                return answered
            }
            perform { [weak self] in
                self?.mprisPlaysAnsweredBeforeExit(answered)
                done()
            }
        }
    }

    /// Answered: owed no more, so out of the journal.
    private func mprisPlaysAnsweredBeforeExit(_ answered: [MPRISPauseJournal.PausedPlayer]) {
        let answered = Set(answered)
        mpris.leftovers.removeAll { answered.contains($0) }
        for (id, pause) in mpris.pauses {
            for (name, player) in pause.players where answered.contains(player.identity) {
                mpris.pauses[id]?.players[name] = nil
            }
        }
    }
}
