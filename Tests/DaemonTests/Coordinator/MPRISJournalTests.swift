import Foundation
import Logging
import PipeWireSandbox
import PolicyRules
import SessionPolicy
import Synchronization
import Testing

@testable import AudioSessionDaemon

/// The MPRIS pause journal and what undoes it (exit, a crashed run's leftovers, PipeWire
/// gone), deterministic: the coordinator with a fake backend, recorded button presses, a real
/// journal file in a temporary directory, bus answers handed to the loop by hand. The same
/// with a real mpv and a real daemon: MPRISLeftoverTests.
@Suite("PolicyCoordinator: MPRIS pauses are journalled and undone")
struct MPRISJournalTests {
    let backend = FakeBackend()
    let coordinator: PolicyCoordinator
    let buttons = RecordingButtons()
    let loop = LoopQueue()
    let clock = VirtualLoop()
    let directory: URL
    let speaker = Port(uid: "speaker", nodeID: 40, type: .builtInSpeaker, direction: .output)
    static let mpv = "org.mpris.MediaPlayer2.mpv"
    static let mpvPID: Int32 = 4242

    init() throws {
        coordinator = try .onShippedRules(backend, loop: clock)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mpris-journal-\(UUID().uuidString)")
    }

    // MARK: - Fixtures

    var journalFile: JournalFile<MPRISPauseJournal> { JournalFile(directory: directory, logger: Logger(label: "test")) }

    /// What the journal file holds now (nil: no file, nothing owed).
    var journal: [MPRISPauseJournal.PausedPlayer]? {
        FileManager.default.fileExists(atPath: journalFile.url.path) ? journalFile.read().players : nil
    }

    func player(_ status: PlaybackStatus, uniqueName: String = ":1.7") -> MPRISPlayer {
        MPRISPlayer(busName: Self.mpv, uniqueName: uniqueName, processID: Self.mpvPID, flatpakAppID: nil, status: status)
    }

    func entry(uniqueName: String = ":1.7") -> MPRISPauseJournal.PausedPlayer {
        .init(busName: Self.mpv, uniqueName: uniqueName, processID: Self.mpvPID)
    }

    /// mpv's stream (its process plays it; `pausedByUser`: corked, as mpv's pause leaves it).
    func music(_ activity: StreamActivity = .playing) -> BackendStream {
        BackendStream(
            id: .playback(1), client: 10, properties: ["media.role": "Music"], activity: activity,
            appName: "mpv", processID: Self.mpvPID)
    }

    func call() -> BackendStream {
        BackendStream(
            id: .playback(2), client: 20, properties: ["media.role": "Communication"], activity: .playing,
            appName: "voip", processID: 777)
    }

    /// The bus side as the daemon starts it: the journal read, then the players reported.
    func attachPlayers(_ players: [MPRISPlayer]) {
        coordinator.attachPlayers(MPRISPauses(buttons: buttons, journalFile: journalFile, loop: clock, perform: loop.perform))
        for player in players { coordinator.playerEvent(.appeared(player)) }
        coordinator.playersDiscovered()
    }

    func attachGraph(_ streams: [BackendStream]) {
        coordinator.handle(.attached(streams: streams, ports: [speaker], defaultOutput: "speaker", defaultInput: nil))
    }

    func status(_ status: PlaybackStatus) {
        coordinator.playerEvent(.statusChanged(busName: Self.mpv, status))
    }

    /// mpv plays, a call pauses it over MPRIS, mpv confirms.
    func pausedByACall() async throws {
        attachPlayers([player(.playing)])
        attachGraph([music()])
        coordinator.handle(.streamAppeared(call()))
        try await buttons.waitFor(["Pause \(Self.mpv)"])
        status(.paused)
        #expect(journal == [entry()])
    }

    // MARK: - The journal follows the pause

    @Test func aPauseIsJournalledFromThePressUntilOurPlayIsConfirmed() async throws {
        attachPlayers([player(.playing)])
        attachGraph([music()])
        #expect(journal == nil)
        coordinator.handle(.streamAppeared(call()))
        #expect(journal == [entry()], "journalled as Pause is pressed, before it is confirmed")
        try await buttons.waitFor(["Pause \(Self.mpv)"])
        status(.paused)
        #expect(journal == [entry()])

        coordinator.handle(.streamRemoved(2))
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)"])
        #expect(journal == [entry()], "still owed until mpv says Playing")
        status(.playing)
        #expect(journal == nil, "Play confirmed: nothing owed, no file")
    }

    /// A call that switches the graph's rate makes the music idle for a moment just before the
    /// call pauses it. That idle moment's grace used to run on through our own pause: it
    /// counted the paused player as stopped, closed the pause, and the call's end played
    /// nothing. Our own pause is not the app stopping.
    @Test func anIdleMomentBeforeOurPauseDoesNotCloseIt() async throws {
        attachPlayers([player(.playing)])
        attachGraph([music()])
        coordinator.handle(.streamChanged(music(.idle)))  // the rate switch
        coordinator.handle(.streamAppeared(call()))
        try await buttons.waitFor(["Pause \(Self.mpv)"])
        coordinator.handle(.streamChanged(music(.playing)))  // running again at the new rate
        status(.paused)
        coordinator.handle(.streamChanged(music(.idle)))  // paused: its node idles
        clock.advance(by: StreamQuietness.standard.idleGrace * 2)
        #expect(journal == [entry()], "still paused by us")
        coordinator.handle(.streamRemoved(2))
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)"])
    }

    @Test func aUserWhoTakesOverDuringTheCallTakesThePlayerOutOfTheJournal() async throws {
        try await pausedByACall()
        status(.playing)  // its user pressed play: paused again, never resumed by us
        #expect(journal == nil)
        try await buttons.waitFor(["Pause \(Self.mpv)", "Pause \(Self.mpv)"])
    }

    @Test func aPlayerThatLeavesTheBusLeavesTheJournal() async throws {
        try await pausedByACall()
        coordinator.playerEvent(.vanished(busName: Self.mpv))
        #expect(journal == nil)
    }

    @Test func aCallThatStartsWhileOurPlayIsOnItsWayPausesAgainAndStillOwesAPlay() async throws {
        try await pausedByACall()
        coordinator.handle(.streamRemoved(2))
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)"])
        // Another call before mpv reported Playing: Pause goes after our Play, and is owed one.
        coordinator.handle(.streamAppeared(BackendStream(
            id: .playback(3), client: 30, properties: ["media.role": "Communication"], activity: .playing,
            appName: "voip2", processID: 778)))
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)", "Pause \(Self.mpv)"])
        status(.playing)  // our Play landing: not its user
        status(.paused)
        #expect(journal == [entry()])
        coordinator.handle(.streamRemoved(3))
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)", "Pause \(Self.mpv)", "Play \(Self.mpv)"])
    }

    /// Firefox re-creating its streams while a call starts: the call goes, we press Play, mpv's
    /// stream runs again before mpv says Playing (the pause is over), and the call is back.
    /// mpv is still ours: paused again, its late Playing is our Play's, and the end plays it.
    @Test func aCallBackBeforeThePlayerSaysPlayingStillOwesItAPlay() async throws {
        try await pausedByACall()
        coordinator.handle(.streamChanged(music(.pausedByUser)))  // mpv's pause corks its stream
        coordinator.handle(.streamRemoved(2))
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)"])
        coordinator.handle(.streamChanged(music(.playing)))  // its stream runs: the pause is over
        coordinator.handle(.streamAppeared(call()))
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)", "Pause \(Self.mpv)"])
        status(.playing)  // our Play landing late: not its user
        status(.paused)
        coordinator.handle(.streamRemoved(2))
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)", "Pause \(Self.mpv)", "Play \(Self.mpv)"])
    }

    /// A player just started says Stopped until it has loaded, while its stream already plays.
    /// A call that begins in between finds no player playing and holds the stream; the Playing
    /// that follows is that late report, not its user's press: paused by us, played at the end.
    @Test func aPlayerThatReportsPlayingOnlyAfterTheCallBeganIsResumedAtItsEnd() async throws {
        attachPlayers([player(.stopped)])
        attachGraph([music()])
        coordinator.handle(.streamAppeared(call()))
        #expect(buttons.presses.isEmpty, "nothing said Playing: nothing to press yet")
        #expect(journal == nil)
        status(.playing)  // the late report
        try await buttons.waitFor(["Pause \(Self.mpv)"])
        #expect(journal == [entry()], "paused by us: owed a Play")
        status(.paused)
        coordinator.handle(.streamRemoved(2))
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)"])
    }

    /// Only the first report after the interruption began is the late one: a Playing after
    /// the player confirmed our pause is its user's.
    @Test func aPlayAfterTheLateReportIsItsUsers() async throws {
        attachPlayers([player(.stopped)])
        attachGraph([music()])
        coordinator.handle(.streamAppeared(call()))
        status(.playing)
        try await buttons.waitFor(["Pause \(Self.mpv)"])
        status(.paused)
        status(.playing)  // its user pressed play
        try await buttons.waitFor(["Pause \(Self.mpv)", "Pause \(Self.mpv)"])
        #expect(journal == nil, "its user took over: nothing owed")
        status(.paused)
        coordinator.handle(.streamRemoved(2))
        #expect(coordinator.playerControl?.mpris.playsInFlight.isEmpty == true, "no Play pressed")
        #expect(coordinator.playerControl?.mpris.pauses.isEmpty == true, "the pause is over")
    }

    // MARK: - Exit

    @Test func exitPlaysWhatWePausedAndEmptiesTheJournal() async throws {
        try await pausedByACall()
        let finished = Flag()
        coordinator.resumePlayersBeforeExit { finished.set() }
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)"])
        try await loop.drain(until: { finished.isSet })
        #expect(journal == nil, "the Play was answered: owed no more")
        // Nothing is pressed after exit began, whatever the graph does meanwhile.
        coordinator.handle(.streamAppeared(BackendStream(
            id: .playback(3), client: 30, properties: ["media.role": "Communication"], activity: .playing,
            appName: "voip2", processID: 778)))
        status(.playing)
        #expect(buttons.presses == ["Pause \(Self.mpv)", "Play \(Self.mpv)"])
    }

    @Test func exitLeavesAPlayerItsUserTookOverAlone() async throws {
        try await pausedByACall()
        status(.playing)
        try await buttons.waitFor(["Pause \(Self.mpv)", "Pause \(Self.mpv)"])
        status(.paused)
        let finished = Flag()
        coordinator.resumePlayersBeforeExit { finished.set() }
        try await loop.drain(until: { finished.isSet })
        #expect(buttons.presses == ["Pause \(Self.mpv)", "Pause \(Self.mpv)"], "no Play")
    }

    @Test func aPlayThatIsNotAnsweredAtExitStaysJournalled() async throws {
        try await pausedByACall()
        buttons.refuse("Play")
        let finished = Flag()
        coordinator.resumePlayersBeforeExit { finished.set() }
        try await loop.drain(until: { finished.isSet })
        #expect(journal == [entry()], "the next start tries again")
    }

    // MARK: - A crashed run's leftovers

    @Test func aLeftoverOfACrashedRunIsAdoptedWhileTheCallGoesOnAndPlayedWhenItEnds() async throws {
        journalFile.write(MPRISPauseJournal(players: [entry()]))
        attachPlayers([player(.paused)])
        attachGraph([music(.pausedByUser), call()])
        #expect(coordinator.engine.snapshot(of: try #require(musicSession))?.activity == .interrupted)
        #expect(journal == [entry()], "still owed")
        coordinator.handle(.streamRemoved(2))
        try await buttons.waitFor(["Play \(Self.mpv)"])
        status(.playing)
        coordinator.handle(.streamChanged(music(.playing)))
        #expect(journal == nil)
    }

    @Test func aLeftoverIsDecidedWhicheverComesLastOfTheGraphAndThePlayers() async throws {
        journalFile.write(MPRISPauseJournal(players: [entry()]))
        attachGraph([music(.pausedByUser), call()])
        attachPlayers([player(.paused)])
        #expect(coordinator.engine.snapshot(of: try #require(musicSession))?.activity == .interrupted)
        coordinator.handle(.streamRemoved(2))
        try await buttons.waitFor(["Play \(Self.mpv)"])
    }

    @Test func aLeftoverNothingInterruptsAnyMoreIsPlayedAtOnce() async throws {
        journalFile.write(MPRISPauseJournal(players: [entry()]))
        attachPlayers([player(.paused)])
        attachGraph([music(.pausedByUser)])
        try await buttons.waitFor(["Play \(Self.mpv)"])
        #expect(journal == [entry()], "owed until mpv says Playing")
        status(.playing)
        coordinator.handle(.streamChanged(music(.playing)))
        #expect(journal == nil)
    }

    @Test func aLeftoverThatIsNotPlayedBackIsReportedAsPausedAgain() async throws {
        journalFile.write(MPRISPauseJournal(players: [entry()]))
        attachPlayers([player(.paused)])
        attachGraph([music(.pausedByUser)])
        try await buttons.waitFor(["Play \(Self.mpv)"])
        let session = try #require(musicSession)
        #expect(coordinator.engine.snapshot(of: session)?.activity == .active)
        // mpv never plays: after the grace its corked stream is what it is, a pause.
        clock.advance(by: StreamQuietness.standard.idleGrace)
        clock.advance(by: .seconds(5))
        #expect(coordinator.engine.snapshot(of: session)?.activity == .inactive)
    }

    @Test(arguments: [
        (":1.7", PlaybackStatus.playing, "played since (its user took over)"),
        (":1.7", .stopped, "stopped since"),
        (":1.99", .paused, "another player under the same name"),
    ])
    func aLeftoverWhosePlayerIsNoLongerPausedByUsIsDropped(uniqueName: String, status: PlaybackStatus, why: String) async throws {
        journalFile.write(MPRISPauseJournal(players: [entry()]))
        attachPlayers([player(status, uniqueName: uniqueName)])
        attachGraph([music(status == .playing ? .playing : .pausedByUser)])
        #expect(journal == nil, "\(why): dropped")
        coordinator.handle(.streamRemoved(1))
        await Task.yield()
        #expect(buttons.presses.isEmpty, "\(why): no Play")
    }

    @Test func aLeftoverWhosePlayerIsGoneIsDropped() async throws {
        journalFile.write(MPRISPauseJournal(players: [entry()]))
        attachPlayers([])
        attachGraph([])
        #expect(journal == nil)
        #expect(buttons.presses.isEmpty)
    }

    @Test func aLeftoverWithNoStreamIsPlayedAndForgottenOnceAnswered() async throws {
        journalFile.write(MPRISPauseJournal(players: [entry()]))
        attachPlayers([player(.paused)])
        attachGraph([])
        try await buttons.waitFor(["Play \(Self.mpv)"])
        try await loop.drain(until: { journal == nil })
    }

    // MARK: - PipeWire gone

    @Test func pipeWireGoneMidCallThenBackWithoutTheCallPlaysThePlayer() async throws {
        try await pausedByACall()
        coordinator.handle(.lost)
        #expect(journal == [entry()], "the pause outlives the graph")
        // mpv's stream comes back (corked), the call's does not.
        attachGraph([BackendStream(
            id: .playback(11), client: 15, properties: ["media.role": "Music"], activity: .pausedByUser,
            appName: "mpv", processID: Self.mpvPID)])
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)"])
    }

    @Test func pipeWireGoneMidCallThenBackWithTheCallKeepsThePause() async throws {
        try await pausedByACall()
        coordinator.handle(.lost)
        attachGraph([music(.pausedByUser), call()])
        await Task.yield()
        #expect(buttons.presses == ["Pause \(Self.mpv)"], "still interrupted: no Play yet")
        #expect(journal == [entry()])
        coordinator.handle(.streamRemoved(2))
        try await buttons.waitFor(["Pause \(Self.mpv)", "Play \(Self.mpv)"])
    }

    var musicSession: SessionID? { coordinator.sessions.streams[1]?.session }

    // MARK: - Deadlines, on the virtual clock

    @Test func aPlayerThatNeverConfirmsIsHeldAfterItsTimeoutAndNotBefore() async throws {
        attachPlayers([player(.playing)])
        attachGraph([music()])
        coordinator.handle(.streamAppeared(call()))
        try await buttons.waitFor(["Pause \(Self.mpv)"])
        let timeout = EnforcementTiming.standard.playerConfirmTimeout
        clock.advance(by: timeout - .milliseconds(1))
        #expect(!backend.actions.contains(.hold(1)), "not before its timeout")
        clock.advance(by: .milliseconds(1))
        #expect(backend.actions.contains(.hold(1)), "no Paused in \(timeout): its streams are held instead")
    }

    /// Unplugged while mpv plays: it is muted at once and asked to pause; once it reports
    /// Paused it goes back on its new route, silent until its user plays it.
    @Test func aPlayerPausedForItsLostRouteIsBackOnItsRouteOnceItStops() async throws {
        let headphones = Port(uid: "headphones", nodeID: 41, type: .headphones, direction: .output)
        attachPlayers([player(.playing)])
        coordinator.handle(.attached(streams: [music()], ports: [speaker, headphones], defaultOutput: "headphones", defaultInput: nil))
        backend.clearActions()
        coordinator.handle(.portAvailabilityChanged(uid: "headphones", available: false))
        #expect(backend.actions.contains(.mute(1, true)), "silent at once: \(backend.actions)")
        try await buttons.waitFor(["Pause \(Self.mpv)"])
        clock.advance(by: .milliseconds(100))
        #expect(!backend.actions.contains(.mute(1, false)), "not while it still plays")
        status(.paused)
        clock.advance(by: EnforcementTiming.standard.routeLossPlayerCheck)
        #expect(backend.actions.contains(.mute(1, false)), "back on its route: \(backend.actions)")
    }

    /// Its user plays it again soon after the route loss, before its stream was seen to stop
    /// (mpv's cork and uncork over pulse, 100 ms apart, with the node running all along): the
    /// pause counted its stream out, and no change of the stream says it starts. The player's
    /// Playing does: the session is active again, in every arbitration (a call pauses it).
    @Test func aPlayerPlayedAgainBeforeItsStreamWasSeenToStopIsActiveAgain() async throws {
        let headphones = Port(uid: "headphones", nodeID: 41, type: .headphones, direction: .output)
        attachPlayers([player(.playing)])
        coordinator.handle(.attached(streams: [music()], ports: [speaker, headphones], defaultOutput: "headphones", defaultInput: nil))
        let session = try #require(coordinator.sessions.streams[1]?.session)
        coordinator.handle(.portAvailabilityChanged(uid: "headphones", available: false))
        try await buttons.waitFor(["Pause \(Self.mpv)"])
        status(.paused)
        clock.advance(by: EnforcementTiming.standard.routeLossPlayerCheck)
        #expect(coordinator.engine.snapshot(of: session)?.activity == .inactive, "paused for its lost route")
        status(.playing)  // its user: the stream never stopped as far as the graph told
        #expect(coordinator.engine.snapshot(of: session)?.activity == .active, "playing again counts")
        backend.clearActions()
        coordinator.handle(.streamAppeared(call()))
        try await buttons.waitFor(["Pause \(Self.mpv)", "Pause \(Self.mpv)"])
    }

    @Test func aPlayerThatNeverStopsForItsLostRouteStaysSilent() async throws {
        let headphones = Port(uid: "headphones", nodeID: 41, type: .headphones, direction: .output)
        attachPlayers([player(.playing)])
        coordinator.handle(.attached(streams: [music()], ports: [speaker, headphones], defaultOutput: "headphones", defaultInput: nil))
        coordinator.handle(.portAvailabilityChanged(uid: "headphones", available: false))
        clock.advance(by: EnforcementTiming.standard.routeLossPlayerDeadline + .seconds(1))
        #expect(backend.muted.contains(1), "past the deadline it stays muted until it plays again")
        #expect(clock.timers.isEmpty, "and nothing polls any more")
    }

    @Test func aPlayerThatConfirmsInTimeIsNeverHeld() async throws {
        try await pausedByACall()
        clock.advance(by: .seconds(5))
        #expect(!backend.actions.contains(.hold(1)))
    }
}

/// Presses recorded in order, answered at once (or refused).
final class RecordingButtons: MPRISButtons {
    private let record = Mutex<(presses: [String], refused: Set<String>)>(([], []))

    func press(_ member: String, on busName: String) async throws {
        let refused = record.withLock { record in
            record.presses.append("\(member) \(busName)")
            return record.refused.contains(member)
        }
        if refused { throw RecordingButtonsError.refused(member) }
    }

    func refuse(_ member: String) { record.withLock { _ = $0.refused.insert(member) } }

    var presses: [String] { record.withLock { $0.presses } }

    /// Presses happen on a task of their own: waits (bounded) until these were made, in order.
    func waitFor(_ expected: [String]) async throws {
        try await waitUntil(timeout: .seconds(5), "presses are \(expected) (now \(presses))") { () async -> Bool in
            await Task.yield()
            return self.presses == expected
        }
    }
}

enum RecordingButtonsError: Error { case refused(String) }

/// The policy loop, by hand: what the bus side hands back (`perform`) waits here until the
/// test drains it, on the test's own task, like the coordinator's other calls.
final class LoopQueue: Sendable {
    private let work = Mutex<[@Sendable () -> Void]>([])

    var perform: @Sendable (@escaping @Sendable () -> Void) -> Void {
        { [self] job in self.work.withLock { $0.append(job) } }
    }

    /// Runs what was handed back until `condition` holds (bounded).
    func drain(until condition: () -> Bool) async throws {
        try await waitUntil(timeout: .seconds(5), "the loop's work is done") { () async -> Bool in
            await Task.yield()
            for job in work.withLock({ jobs in defer { jobs.removeAll() }; return jobs }) { job() }
            return condition()
        }
    }
}

/// Set once, read from the test.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// The one queue, seen from outside: what carrying out a decision causes waits for the rest of
/// the step it came from.
@Suite("PolicyCoordinator: no step begins inside another")
struct RunToCompletionTests {
    final class Seen: @unchecked Sendable { var decisions: [PolicyDecision] = [] }

    /// Two players whose streams play while their statuses lag (no Pause to press): a call's
    /// step interrupts both over MPRIS, and each falls back to a hold. The fall-backs are
    /// decided when each interruption is carried out, and carried out after the whole step.
    /// (Carried out inside it, each fall-back reached the bus before the interruption it
    /// replaced: unlink, mpris, unlink, mpris.)
    @Test func holdsInsteadOfPausesAreCarriedOutAfterTheRestOfTheCallsStep() throws {
        let fixture = try MPRISJournalTests()
        let vlc = MPRISPlayer(busName: "org.mpris.MediaPlayer2.vlc", uniqueName: ":1.8", processID: 4343, flatpakAppID: nil, status: .stopped)
        let vlcMusic = BackendStream(
            id: .playback(3), client: 30, properties: ["media.role": "Music"], activity: .playing, appName: "vlc", processID: 4343)
        fixture.attachPlayers([fixture.player(.stopped), vlc])
        fixture.attachGraph([fixture.music(), vlcMusic])
        fixture.clock.runQueued()
        let seen = Seen()
        fixture.coordinator.hooks.decision = { seen.decisions.append($0) }
        fixture.coordinator.handle(.streamAppeared(fixture.call()))
        fixture.clock.runQueued()
        let interruptions = seen.decisions.compactMap { decision -> InterruptionMethod? in
            if case .interruptionBegan(_, _, let method) = decision { method } else { nil }
        }
        #expect(interruptions == [.mpris, .mpris, .unlink, .unlink], "\(seen.decisions)")
        #expect(fixture.backend.actions.filter { if case .hold = $0 { true } else { false } }.count == 2)
    }
}
