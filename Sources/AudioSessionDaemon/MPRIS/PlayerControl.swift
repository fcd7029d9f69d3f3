import AppProcesses
import Logging
import SessionPolicy

/// MPRIS interruption and pause for apps that have a media player but no session API: the
/// player control, one component with its own state (``MPRISPauses``: the players, the pauses
/// we pressed and their journal) and timers.
///
/// The engine chooses `.mpris` for an implicit session once we tell it the session has a
/// player (`capabilitiesChanged`). Carrying it out: press Pause on the session's players,
/// confirm by watching `PlaybackStatus`, and hold the streams if a player does not confirm;
/// at the end press Play only on players that were playing and that their user left alone.
/// Our own Pause corks the app's stream: while a pause of ours lasts, the session's activity
/// changes are not reported to the engine (they are not a user pause).
///
/// Entry points: the decisions (``mprisCarryOut(_:in:)``), the coordinator's stream hooks
/// (``mprisStreamJoined(_:session:in:)``, ``mprisOwnsActivityChange(of:in:)``), the graph coming
/// and going (``mprisGraphAttached(in:)``, ``mprisGraphLost()``), the bus side's player news
/// (``mprisPlayerEvent(_:in:)``, ``mprisPlayersDiscovered(in:)``), its own timers and answers
/// (``due(_:in:)``) and exit (``mprisResumeBeforeExit(_:)``). Each takes what the coordinator
/// knows (``Context``) and returns what the coordinator must do next (``FollowUp``): it tells
/// the engine nothing itself. What must not outlive the daemon: PlayerControl+Leftovers.swift.
final class PlayerControl: Sendable {
    /// What the coordinator knows that the player control reads, handed in with each call.
    struct Context {
        var sessions: ImplicitSessions
        var effects: [SessionID: SessionEffects]
        /// The audio server is there and its streams are known.
        var isAttached: Bool
    }

    /// The players, the pauses we pressed and their journal.
    let mpris: MPRISPauses
    /// Where its timers and the players' answers come back (``due(_:in:)``).
    let inbox: DueWorkInbox
    let logger: Logger
    let timing: EnforcementTiming
    let quietness: StreamQuietness

    init(mpris: MPRISPauses, inbox: DueWorkInbox, timing: EnforcementTiming, quietness: StreamQuietness, logger: Logger) {
        self.mpris = mpris
        self.inbox = inbox
        self.timing = timing
        self.quietness = quietness
        self.logger = logger
    }

    var loop: DaemonLoop { inbox.loop }
    var now: Timestamp { inbox.now }

    // MARK: - Hooks

    /// A stream joined an implicit session: does the session have a player now?
    func mprisStreamJoined(_ stream: BackendStream, session: SessionID, in context: Context) -> [FollowUp] {
        guard context.sessions.isImplicit(session) else { return [] }
        return mprisRefreshPlayerCapability(of: session, in: context)
    }

    /// True when a stream's activity change comes from our own Pause / Play and must not
    /// reach the engine as a user pause or a start.
    func mprisOwnsActivityChange(of stream: BackendStream, in session: SessionID) -> Bool {
        guard let pause = mpris.pauses[session] else { return false }
        // Stopping: what our Play at exit starts is nobody's business any more.
        if mpris.stopping { return true }
        if pause.phase == .resuming, stream.activity == .playing { mprisFinishPause(session, "playing again") }
        return true
    }

    /// Carries out the MPRIS side of a decision (after the coordinator's own part).
    func mprisCarryOut(_ decision: PolicyDecision, in context: Context) -> [FollowUp] {
        loop.assertConfined("the player control")
        guard !mpris.stopping else { return [] }
        switch decision {
        case .interruptionBegan(let id, _, .mpris):
            return mprisPauseForInterruption(id, in: context)
        case .interruptionEnded(let id, let options, _) where mpris.pauses[id] != nil:
            mprisEndPause(id, resume: options.contains(.shouldResume))
        case .pauseForRouteLoss(let id, .mpris):
            mprisPauseForRouteLoss(id, in: context)
        case .activated(let id), .deactivated(let id):
            // Closes an interruption without an ended: nothing to resume.
            if let pause = mpris.pauses[id], pause.phase != .resuming { mprisFinishPause(id, "interruption closed") }
        default:
            break
        }
        return []
    }

    /// Its own timers and the players' answers, back on the loop.
    func due(_ work: DueWork, in context: Context) -> [FollowUp] {
        switch work {
        case .pauseUnconfirmed(let id):
            guard let pause = mpris.pauses[id], pause.phase == .pausing, pause.awaitingPause else { return [] }
            return mprisHoldInstead(id, because: "no Paused within \(timing.playerConfirmTimeout)", in: context)
        case .resumeGraceOver(let id):
            mprisFinishPause(id, "resume grace over")
        case .withheldActivity(let id):
            return mprisReportWithheldActivity(of: id, in: context)
        case .withheldIdle(let id, let stream):
            guard mpris.pauses[id] == nil, let now = context.sessions.streams[stream], now.stream.activity == .idle,
                now.reportedActive, context.effects[id]?.isHeld != true
            else { return [] }
            return [.markReported(stream, active: false), .submit(.streamStopped(stream))]
        case .pressFailed(let member, let name, let id, let failure):
            return mprisPressFailed(member, on: name, for: id, failure, in: context)
        default:
            break  // not the player control's (the leftovers' rest: ``mprisDecideAsked(_:sessions:interrupted:)``)
        }
        return []
    }

    /// Player news from the bus side (already on the loop).
    func mprisPlayerEvent(_ event: MPRISEvent, in context: Context) -> [FollowUp] {
        loop.assertConfined("the player control")
        switch event {
        case .appeared(let player):
            mpris.players[player.busName] = player
            return mprisRefreshPlayerCapabilities(in: context)
        case .vanished(let name):
            guard let gone = mpris.players.removeValue(forKey: name) else { return [] }
            mpris.playsInFlight.remove(name)
            logger.info("MPRIS player \(name) left the bus")
            // Gone: we owe it nothing (a newcomer under its name is another player).
            mpris.leftovers.removeAll { $0.isSame(as: gone) }
            var followUps: [FollowUp] = []
            for (id, pause) in mpris.pauses.sorted(by: { $0.key < $1.key }) where pause.players[name] != nil {
                mpris.pauses[id]?.players[name] = nil
                if pause.phase != .resuming && !mpris.stopping {
                    followUps += mprisHoldInstead(id, because: "\(name) left the bus", in: context)
                }
            }
            return followUps + mprisRefreshPlayerCapabilities(in: context)
        case .statusChanged(let name, let status):
            guard let known = mpris.players[name] else { return [] }
            if known.status != status { logger.info("MPRIS player \(name): \(status.rawValue)") }
            mpris.players[name]?.status = status
            if status != .paused { mpris.playsInFlight.remove(name) }
            guard !mpris.stopping else { return [.refreshNowPlaying] }
            for id in mpris.pauses.keys.sorted() where mpris.pauses[id]?.players[name] != nil {
                mprisPlayerStatusChanged(name, to: status, in: id)
            }
            return [.refreshNowPlaying] + (status == .playing ? mprisPlayerPlays(name, in: context) : [])
        }
    }

    /// A player says Playing: its session's playback streams that run but are not counted as
    /// running start now. A pause for a lost route counts them out, and a player played again
    /// soon after (its stream's cork and uncork never seen, the stream still running) would
    /// otherwise stay an inactive session that plays, out of every arbitration. Not while a
    /// pause of ours holds the session (its streams' changes are ours), nor for a session whose
    /// streams count only once heard.
    private func mprisPlayerPlays(_ name: String, in context: Context) -> [FollowUp] {
        var followUps: [FollowUp] = []
        // Among the sessions known to have a player (matching one reads each stream's process
        // ancestry), and no other.
        for id in mpris.sessionsWithPlayers.sorted()
        where context.sessions.isImplicit(id) && mpris.pauses[id] == nil && mprisPlayerNames(of: id, in: context.sessions).contains(name) {
            if let composed = context.sessions.composed[id], quietness.watchesLevel(of: composed.classification) { continue }
            for record in context.sessions.streams(of: id)
            where record.stream.direction == .playback && record.stream.activity == .playing && !record.reportedActive {
                logger.info("\(id): \(name) plays, and stream \(record.stream.id) runs: started")
                followUps.append(.start(record.stream.id))
            }
        }
        return followUps
    }

    // MARK: - Capabilities

    /// The playback status of each MPRIS player of the session.
    func mprisPlayerStatuses(of session: SessionID, in sessions: ImplicitSessions) -> [String: PlaybackStatus] {
        var statuses: [String: PlaybackStatus] = [:]
        for name in mprisPlayerNames(of: session, in: sessions) { statuses[name] = mpris.players[name]?.status }
        return statuses
    }

    func mprisPlayerNames(of session: SessionID, in sessions: ImplicitSessions) -> Set<String> {
        return PlayerMatching.players(
            of: sessions.streams(of: session).map(\.stream), among: mpris.players, ancestry: { ProcessAncestry.chain(from: $0) })
    }

    private func mprisRefreshPlayerCapabilities(in context: Context) -> [FollowUp] {
        let live = Set(context.sessions.apps.keys)
        mpris.sessionsWithPlayers.formIntersection(live)
        for id in mpris.pauses.keys where context.sessions.streams(of: id).isEmpty && context.sessions.explicit[id] == nil {
            mpris.pauses.removeValue(forKey: id)?.timer?.cancel()
        }
        return live.sorted().flatMap { mprisRefreshPlayerCapability(of: $0, in: context) }
    }

    private func mprisRefreshPlayerCapability(of id: SessionID, in context: Context) -> [FollowUp] {
        let hasPlayer = !mprisPlayerNames(of: id, in: context.sessions).isEmpty
        guard hasPlayer != mpris.sessionsWithPlayers.contains(id) else { return [] }
        if hasPlayer { mpris.sessionsWithPlayers.insert(id) } else { mpris.sessionsWithPlayers.remove(id) }
        logger.info("\(id) \(hasPlayer ? "has" : "no longer has") an MPRIS player")
        return [.capabilitiesChanged(id)]
    }

    // MARK: - Pausing

    private func mprisPauseForInterruption(_ id: SessionID, in context: Context) -> [FollowUp] {
        var pause = mpris.pauses[id] ?? MPRISPause(began: now)
        // A new interruption while we resume from the last one: each player starts afresh.
        let afresh = pause.phase == .resuming
        pause.phase = .pausing
        pause.began = now
        let wasHeld = pause.heldInstead
        pause.heldInstead = false
        let streamsPlay = context.sessions.streams(of: id).contains { $0.stream.activity == .playing }
        for name in mprisPlayerNames(of: id, in: context.sessions).sorted() {
            guard let known = mpris.players[name] else { continue }
            let earlier = pause.players[name]
            let playing = known.status == .playing
            var player: PlayerPause
            if let earlier, !afresh {
                player = earlier
            } else {
                // Our Play still on its way counts as playing; so does a player a previous run
                // left paused (a leftover): the policy still wants it interrupted, the pause is
                // ours again.
                let ours = earlier?.awaitingPlay == true || mpris.playsInFlight.contains(name)
                    || (known.status == .paused && mprisIsLeftover(known))
                player = PlayerPause(known, wasPlaying: playing || ours)
                player.awaitingPlay = (earlier?.awaitingPlay ?? false) || mpris.playsInFlight.contains(name)
                player.statusLagsItsStream = !playing && !ours && streamsPlay
            }
            if playing || player.awaitingPlay {
                // Pause goes after our Play on the bus, so it lands last.
                player.awaitingPlay = false
                player.awaitingPause = true
                mprisPress("Pause", on: name, for: id)
            }
            pause.players[name] = player
        }
        mpris.pauses[id] = pause
        mprisForgetLeftovers(adoptedBy: pause, of: id)
        if pause.awaitingPause {
            mprisArmConfirmTimer(id)
            return []
        }
        if pause.players.contains(where: { $1.isOwed(in: .paused) && mpris.players[$0]?.status == .paused }) {
            // Paused by us already (an adopted leftover): nothing to press, nothing to hold.
            mpris.pauses[id]?.phase = .paused
            return []
        }
        // No player of it plays: whatever sounds is out of MPRIS's reach.
        return mprisHoldInstead(id, because: wasHeld ? "still unconfirmed" : "no player of it is playing", in: context)
    }

    private func mprisPauseForRouteLoss(_ id: SessionID, in context: Context) {
        // Never resumed, so not remembered (nor journalled): the cork that follows is reported
        // as the pause it is. A player said to be stopped is paused too: its stream plays (the
        // session was active), and a player's status lags behind its stream when it starts
        // (mpv-mpris says Stopped while it loads). Pause on a paused or stopped player does nothing.
        for name in mprisPlayerNames(of: id, in: context.sessions).sorted() where mpris.players[name]?.status != .paused {
            logger.info("\(id): pausing \(name) over MPRIS (its output went away)")
            let buttons = mpris.buttons
            let logger = self.logger
            Task {
                do { try await buttons.press("Pause", on: name) } catch {
                    logger.warning("\(id): \(name) did not pause for the route loss: \(error)")
                }
            }
        }
    }

    private func mprisArmConfirmTimer(_ id: SessionID) {
        mpris.pauses[id]?.timer?.cancel()
        mpris.pauses[id]?.timer = inbox.schedule(after: timing.playerConfirmTimeout, .pauseUnconfirmed(id))
    }

    /// Presses a button on the bus thread; the answer comes back to the loop.
    private func mprisPress(_ member: String, on name: String, for id: SessionID) {
        let buttons = mpris.buttons
        let perform = mpris.perform
        let inbox = self.inbox
        Task {
            var failure: String?
            do { try await buttons.press(member, on: name) } catch { failure = "\(error)" }
            guard let failure else { return }
            perform { inbox.deliver(.pressFailed(member: member, player: name, session: id, failure: failure)) }
        }
    }

    private func mprisPressFailed(_ member: String, on name: String, for id: SessionID, _ failure: String, in context: Context) -> [FollowUp] {
        if member == "Play" { mpris.playsInFlight.remove(name) }
        guard let pause = mpris.pauses[id], let player = pause.players[name] else { return [] }
        if member == "Pause", player.awaitingPause {
            // Not on its way any more: only a Paused it reports later makes it resumable.
            mpris.pauses[id]?.players[name]?.awaitingPause = false
            return mprisHoldInstead(id, because: "\(name) refused Pause: \(failure)", in: context)
        } else if member == "Play" {
            logger.warning("\(id): \(name) refused Play: \(failure)")
            mpris.pauses[id]?.players[name]?.awaitingPlay = false
            if mpris.pauses[id]?.players.values.contains(where: { $0.awaitingPlay }) == false {
                mprisFinishPause(id, "Play refused")
            }
        }
        return []
    }

    private func mprisPlayerStatusChanged(_ name: String, to status: PlaybackStatus, in id: SessionID) {
        guard var pause = mpris.pauses[id], var player = pause.players[name] else { return }
        let lateReport = player.statusLagsItsStream
        player.statusLagsItsStream = false
        switch status {
        case .paused, .stopped:
            if player.awaitingPause {
                player.awaitingPause = false
                let elapsed = now - pause.began
                logger.info("\(id): \(name) confirmed \(status.rawValue) \(Self.milliseconds(elapsed)) ms after the interruption began")
            } else if status == .stopped {
                // Its user stopped it, or it stopped itself (mpv does when its server goes
                // away): nothing to resume.
                player.userTookOver = true
                logger.info("MPRIS: \(name), paused by us, is Stopped now: not ours to resume (\(id))")
            }
        case .playing:
            if player.awaitingPlay {
                player.awaitingPlay = false
            } else if player.awaitingPause {
                // Our Pause is not carried out yet (a slow or hung player): not its user.
            } else if pause.phase != .resuming {
                if lateReport {
                    // The playing its stream showed when the interruption began, reported late:
                    // paused by us like any player that was playing, and ours to resume.
                    logger.info("\(id): \(name) reported Playing late (its stream played as the interruption began); pausing it")
                    player.wasPlaying = true
                } else {
                    // Its user pressed play during the interruption: the session must stay
                    // silent, and the end must not guess what they want.
                    logger.info("\(id): \(name) played by its user during the interruption; pausing it again, no resume")
                    player.userTookOver = true
                }
                player.awaitingPause = true
                pause.phase = .pausing
                pause.began = now
                mprisPress("Pause", on: name, for: id)
            }
        }
        pause.players[name] = player
        mpris.pauses[id] = pause
        if pause.phase == .pausing && !pause.awaitingPause {
            mpris.pauses[id]?.phase = .paused
            mpris.pauses[id]?.timer?.cancel()
            mpris.pauses[id]?.timer = nil
        } else if pause.phase == .pausing {
            mprisArmConfirmTimer(id)
        }
    }

    /// The fallback: a player that does not confirm its pause gets its streams held, so the
    /// session ends up silent either way. The interruption's end releases them and presses
    /// Play as usual.
    private func mprisHoldInstead(_ id: SessionID, because reason: String, in context: Context) -> [FollowUp] {
        guard var pause = mpris.pauses[id], !pause.heldInstead, context.effects[id]?.interruption != nil else { return [] }
        logger.warning("\(id): MPRIS pause not confirmed (\(reason)); holding its streams instead")
        pause.heldInstead = true
        pause.phase = .paused
        pause.timer?.cancel()
        pause.timer = nil
        mpris.pauses[id] = pause
        // Which method stops it instead is the engine's to say (unlink, or mute where it cannot).
        return [.submit(.interruptionMethodFailed(id, .mpris))]
    }

    // MARK: - Ending

    func mprisEndPause(_ id: SessionID, resume: Bool) {
        guard var pause = mpris.pauses[id] else { return }
        pause.timer?.cancel()
        pause.timer = nil
        // A Pause still on its way counts as paused: the player gets Play after it, in order.
        let resumable = resume ? pause.players.filter { name, player in
            player.wasPlaying && !player.userTookOver
                && (mpris.players[name]?.status == .paused || player.awaitingPause)
        }.keys.sorted() : []
        guard !resumable.isEmpty else {
            mpris.pauses[id] = pause
            return mprisFinishPause(id, resume ? "no player to resume" : "ended without shouldResume")
        }
        pause.phase = .resuming
        for name in resumable {
            pause.players[name]?.awaitingPause = false
            pause.players[name]?.awaitingPlay = true
            logger.info("\(id): resuming \(name) over MPRIS")
        }
        // Its streams should run again soon; if not, report what they really do.
        pause.timer = inbox.schedule(after: quietness.idleGrace, .resumeGraceOver(id))
        mpris.pauses[id] = pause
        mpris.playsInFlight.formUnion(resumable)
        for name in resumable { mprisPress("Play", on: name, for: id) }
    }

    /// Forgets a pause and tells the engine what the session's streams really do now (their
    /// changes were withheld while the pause was ours).
    private func mprisFinishPause(_ id: SessionID, _ reason: String) {
        guard let pause = mpris.pauses.removeValue(forKey: id) else { return }
        pause.timer?.cancel()
        logger.debug("\(id): MPRIS pause over (\(reason))")
        // Later, not inside the decision being carried out: the loop's next turn.
        inbox.later(.zero, .withheldActivity(id))
    }

    private func mprisReportWithheldActivity(of id: SessionID, in context: Context) -> [FollowUp] {
        guard mpris.pauses[id] == nil else { return [] }
        var followUps: [FollowUp] = []
        for record in context.sessions.streams(of: id) {
            let stream = record.stream
            switch stream.activity {
            case .pausedByUser where record.reportedActive:
                followUps += [.markReported(stream.id, active: false), .submit(.streamPausedByUser(stream.id))]
            case .playing where !record.reportedActive:
                followUps += [.markReported(stream.id, active: true), .submit(.streamStarted(id, stream.id))]
            case .idle where record.reportedActive:
                // Stopped by its app without a cork: the usual grace before it counts as stopped.
                inbox.later(quietness.idleGrace, .withheldIdle(id, stream.id))
            default:
                break
            }
        }
        return followUps
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 10).rounded()
        return "\(tenths / 10)"
    }
}
