#if canImport(Glibc)
import Glibc
#endif
import Logging
import PolicyRules
import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// An implicit session is an app, whatever connections its streams come on, and its
/// classification comes from what its streams do together (the coordinator with a fake
/// backend; the real apps are in the integration tests).
@Suite("Implicit sessions are apps")
struct AppSessionTests {
    let backend = FakeBackend()
    let clock = VirtualLoop()
    let coordinator: PolicyCoordinator
    let speaker = Port(uid: "speaker", nodeID: 40, type: .builtInSpeaker, direction: .output)
    /// Streams of "the app" come from this very process, as an ALSA app's PCMs or a browser's
    /// clients come from one process (or its children).
    let appPID = getpid()

    init() throws {
        coordinator = try .onShippedRules(backend, loop: clock)
        coordinator.handle(.attached(streams: [], ports: [speaker], defaultOutput: "speaker", defaultInput: nil))
    }

    func stream(
        _ id: UInt32, client: UInt32, pid: Int32?, direction: StreamDirection = .playback, properties: [String: String] = [:],
        activity: StreamActivity = .playing, monitor: Bool = false
    ) -> BackendStream {
        BackendStream(
            id: StreamID(direction, id), client: client, properties: properties, activity: activity,
            appName: "app\(client)", processID: pid, capturesMonitor: monitor)
    }

    func music(_ id: UInt32 = 1) -> BackendStream { stream(id, client: 90, pid: nil, properties: ["media.role": "Music"]) }

    var sessionCount: Int { coordinator.sessions.sessionIDs.count }

    @Test func streamsOfOneProcessOnSeveralConnectionsAreOneSession() {
        coordinator.handle(.streamAppeared(stream(1, client: 10, pid: appPID)))
        coordinator.handle(.streamAppeared(stream(2, client: 11, pid: appPID, direction: .capture)))
        #expect(sessionCount == 1)
        #expect(coordinator.sessions.streams[1]?.session == coordinator.sessions.streams[.capture(2)]?.session)
    }

    @Test func anAppsOwnCallStreamsNeverInterruptEachOther() {
        // A SIP client over ALSA: one connection per PCM, each stream a "call".
        let call = ["media.role": "Communication"]
        coordinator.handle(.streamAppeared(stream(1, client: 10, pid: appPID, properties: call)))
        coordinator.handle(.streamAppeared(stream(2, client: 11, pid: appPID, direction: .capture, properties: call)))
        coordinator.handle(.streamAppeared(stream(3, client: 12, pid: appPID, properties: call)))
        #expect(!backend.actions.contains { if case .hold = $0 { true } else { false } })
    }

    @Test func anAppThatCapturesFromAMicrophoneWhilePlayingIsACallForAsLongAsBothRun() throws {
        coordinator.handle(.streamAppeared(music()))
        // A browser: plays with no role (a media player), then opens its microphone on another client.
        coordinator.handle(.streamAppeared(stream(2, client: 10, pid: appPID, properties: ["application.name": "Chromium"])))
        #expect(!backend.actions.contains(.hold(1)), "a browser playing is media: it mixes")
        coordinator.handle(.streamAppeared(stream(3, client: 11, pid: appPID, direction: .capture)))
        #expect(backend.actions.contains(.hold(1)), "the call interrupts the music")
        let session = try #require(coordinator.sessions.streams[2]?.session)
        #expect(coordinator.sessions.composed[session]?.reason == .call)
        #expect(coordinator.engine.snapshot(of: session)?.category == .playAndRecord)
        backend.clearActions()
        coordinator.handle(.streamRemoved(.capture(3)))  // the call ends; its page keeps playing
        #expect(!backend.actions.contains(.release(1)), "a call app may be opening its microphone again")
        clock.advance(by: AppBehaviour.standard.callHoldover)
        #expect(backend.actions.contains(.release(1)))
        #expect(coordinator.sessions.composed[session]?.reason == .rules)
    }

    /// linphonec closes and opens its speaker again in the middle of a call: for that moment it
    /// only records. The call stays a call (the music it paused stays paused, its other end is
    /// not held), and opening the speaker again within the holdover changes nothing.
    @Test func aCallEndOpeningItsSpeakerAgainMidCallStaysACall() throws {
        coordinator.handle(.streamAppeared(music()))
        coordinator.handle(.streamAppeared(stream(2, client: 10, pid: appPID)))
        coordinator.handle(.streamAppeared(stream(3, client: 11, pid: appPID, direction: .capture)))
        let session = try #require(coordinator.sessions.streams[2]?.session)
        #expect(coordinator.sessions.composed[session]?.reason == .call)
        backend.clearActions()
        coordinator.handle(.streamRemoved(2))  // its speaker closes ...
        clock.advance(by: .milliseconds(200))
        #expect(coordinator.sessions.composed[session]?.reason == .call, "still a call while it reopens")
        coordinator.handle(.streamAppeared(stream(4, client: 12, pid: appPID)))  // ... and opens again
        clock.advance(by: AppBehaviour.standard.callHoldover * 2)
        #expect(coordinator.sessions.composed[session]?.reason == .call)
        #expect(coordinator.engine.snapshot(of: session)?.category == .playAndRecord)
        #expect(!backend.actions.contains(.release(1)), "the music stayed held all along")
    }

    /// A call whose streams all stop is over at once: nothing of it runs to wait for.
    @Test func aCallWhoseStreamsAllGoIsOverAtOnce() throws {
        coordinator.handle(.streamAppeared(music()))
        coordinator.handle(.streamAppeared(stream(2, client: 10, pid: appPID)))
        coordinator.handle(.streamAppeared(stream(3, client: 11, pid: appPID, direction: .capture)))
        #expect(backend.actions.contains(.hold(1)))
        backend.clearActions()
        coordinator.handle(.streamRemoved(.capture(3)))
        coordinator.handle(.streamRemoved(2))
        #expect(backend.actions.contains(.release(1)))
    }

    @Test func recordingAMonitorWhilePlayingIsNotACall() {
        coordinator.handle(.streamAppeared(music()))
        coordinator.handle(.streamAppeared(stream(2, client: 10, pid: appPID)))
        coordinator.handle(.streamAppeared(stream(3, client: 10, pid: appPID, direction: .capture, monitor: true)))
        #expect(!backend.actions.contains(.hold(1)))
        let session = coordinator.sessions.streams[2]?.session
        #expect(session.flatMap { coordinator.sessions.composed[$0]?.reason } == .monitoring)
    }

    @Test func aRecorderWithNoRoleRecordsAndIsNeverSilenced() throws {
        coordinator.handle(.streamAppeared(music()))
        coordinator.handle(.streamAppeared(stream(2, client: 10, pid: appPID, direction: .capture)))
        let session = try #require(coordinator.sessions.streams[.capture(2)]?.session)
        #expect(coordinator.engine.snapshot(of: session)?.category == .record)
        #expect(coordinator.engine.snapshot(of: session)?.isCaptureSilenced == false)
        #expect(backend.gains[2] == nil, "nothing wrote the microphone stream's volume")
        #expect(!backend.actions.contains(.mute(2, true)))
        #expect(!backend.actions.contains(.hold(1)), "recording mixes with the music on the desktop")
    }

    @Test func aRoleThatArrivesLateReclassifiesTheStream() throws {
        coordinator.handle(.streamAppeared(music()))
        coordinator.handle(.streamAppeared(stream(2, client: 10, pid: nil)))
        #expect(!backend.actions.contains(.hold(1)))
        coordinator.handle(.streamChanged(stream(2, client: 10, pid: nil, properties: ["media.role": "Communication"])))
        #expect(backend.actions.contains(.hold(1)))
        let session = try #require(coordinator.sessions.streams[2]?.session)
        #expect(coordinator.engine.snapshot(of: session)?.priorityClass.name == "communication")
    }

    @Test func aClientWhoseProcessBecomesKnownJoinsItsApp() {
        coordinator.handle(.streamAppeared(stream(1, client: 10, pid: appPID)))
        coordinator.handle(.streamAppeared(stream(2, client: 11, pid: nil)))
        #expect(sessionCount == 2)
        coordinator.handle(.streamChanged(stream(2, client: 11, pid: appPID)))
        #expect(sessionCount == 1)
    }

    @Test func twoSpeechStreamsDuckTheMusicOnce() {
        coordinator.handle(.streamAppeared(music()))
        let speech = ["application.process.binary": "sd_espeak-ng"]
        coordinator.handle(.streamAppeared(stream(2, client: 10, pid: nil, properties: speech)))
        coordinator.handle(.streamAppeared(stream(3, client: 11, pid: nil, properties: speech)))
        coordinator.handle(.streamAudible(2, true))
        coordinator.handle(.streamAudible(3, true))
        #expect(coordinator.engine.snapshot(of: coordinator.sessions.streams[1]!.session)?.gain == 0.3)
    }
}

/// A session that ducks others counts while its streams are heard, not while they merely run:
/// speech synthesizers keep their stream running long after the words end.
@Suite("Ducking sessions end when their streams fall silent")
struct QuietStreamTests {
    let backend = FakeBackend()
    let loop = VirtualLoop()
    let coordinator: PolicyCoordinator
    let speaker = Port(uid: "speaker", nodeID: 40, type: .builtInSpeaker, direction: .output)
    let quietness = StreamQuietness.standard

    init() throws {
        coordinator = try .onShippedRules(backend, loop: loop)
        coordinator.handle(.attached(streams: [], ports: [speaker], defaultOutput: "speaker", defaultInput: nil))
        coordinator.handle(.streamAppeared(BackendStream(
            id: .playback(1), client: 90, properties: ["media.role": "Music"], activity: .playing,
            appName: "music", processID: nil)))
    }

    func speech(_ id: UInt32, client: UInt32) -> BackendStream {
        BackendStream(
            id: .playback(id), client: client, properties: ["application.process.binary": "sd_espeak-ng"],
            activity: .playing, appName: "speech", processID: nil)
    }

    var musicGain: Double? { coordinator.engine.snapshot(of: coordinator.sessions.streams[1]!.session)?.gain }

    @Test func aSpeechStreamDucksOnlyOnceHeardAndStopsPromptlyWhenSilent() {
        coordinator.handle(.streamAppeared(speech(2, client: 10)))
        #expect(backend.watchedLevels == [2])
        #expect(musicGain == 1.0, "running but not heard yet: it ducks nobody")
        coordinator.handle(.streamAudible(2, true))
        #expect(musicGain == 0.3)
        coordinator.handle(.streamAudible(2, false))
        #expect(musicGain == 0.3, "not before its grace")
        // Not ramp steps, and not the meter's patience (it reported):
        let grace = loop.timers.filter { $0.delay >= .milliseconds(100) && $0.delay != quietness.meterPatience }.map(\.delay)
        #expect(grace == [quietness.quietGrace])
        loop.advance(by: quietness.quietGrace)
        #expect(musicGain == 1.0, "silent past its grace: the music comes back while the stream still runs")
        coordinator.handle(.streamAudible(2, true))
        #expect(musicGain == 0.3, "words again")
    }

    /// A role-less player the rules do not name: soloAmbient while it may be a beep, so silent
    /// mode mutes it; past a short sound it is media playback, and silent mode lets it play.
    /// A beep that ends in time stays what it was.
    @Test func aRoleLessStreamThatPlaysLongIsMediaPlaybackThatSilentModeLeavesAlone() throws {
        coordinator.setSilentMode(true)
        let player = BackendStream(
            id: .playback(3), client: 30, properties: [:], activity: .playing, appName: "timidity", processID: nil)
        coordinator.handle(.streamAppeared(player))
        let session = try #require(coordinator.sessions.streams[3]?.session)
        #expect(coordinator.engine.snapshot(of: session)?.category == .soloAmbient)
        #expect(coordinator.engine.snapshot(of: session)?.isSilenced == true, "it may be a beep")
        loop.advance(by: AppBehaviour.standard.shortSoundLimit)
        #expect(coordinator.engine.snapshot(of: session)?.category == .playback)
        #expect(coordinator.sessions.composed[session]?.reason == .playing)
        #expect(coordinator.engine.snapshot(of: session)?.isSilenced == false, "music the user asked for")

        let beep = BackendStream(id: .playback(4), client: 40, properties: [:], activity: .playing, appName: "beep", processID: nil)
        coordinator.handle(.streamAppeared(beep))
        let beepSession = try #require(coordinator.sessions.streams[4]?.session)
        loop.advance(by: AppBehaviour.standard.shortSoundLimit / 2)
        coordinator.handle(.streamRemoved(4))
        coordinator.handle(.streamAppeared(BackendStream(
            id: .playback(5), client: 40, properties: [:], activity: .playing, appName: "beep", processID: nil)))
        loop.advance(by: AppBehaviour.standard.shortSoundLimit / 2)
        let again = try #require(coordinator.sessions.streams[5]?.session)
        #expect(coordinator.engine.snapshot(of: again)?.category == .soloAmbient, "two short beeps are not a long one")
        _ = beepSession
    }

    @Test func aSilentHelperStreamNeverDucks() {
        coordinator.handle(.streamAppeared(speech(2, client: 10)))
        coordinator.handle(.streamAudible(2, false))  // sd_dummy: runs, plays zeros
        loop.advance(by: .seconds(5))
        #expect(musicGain == 1.0)
    }

    @Test func aBackendThatCannotMeterJudgesByWhetherTheStreamRuns() {
        backend.metersLevels = false
        coordinator.handle(.streamAppeared(speech(2, client: 10)))
        #expect(musicGain == 0.3)
    }

    @Test func aCallIsNotMeteredItsSilenceIsPartOfTheCall() {
        coordinator.handle(.streamAppeared(BackendStream(
            id: .playback(3), client: 11, properties: ["media.role": "Communication"], activity: .playing,
            appName: "call", processID: nil)))
        #expect(backend.watchedLevels.isEmpty)
        #expect(backend.actions.contains(.hold(1)))
    }

    @Test func aRemovedStreamIsNoLongerWatched() {
        coordinator.handle(.streamAppeared(speech(2, client: 10)))
        coordinator.handle(.streamRemoved(2))
        #expect(backend.watchedLevels.isEmpty)
    }
}

extension QuietStreamTests {
    /// A stream that did not run yet when its meter's patience ran out (a meter hears only a
    /// running stream) gets the patience again once it runs; judged by whether it runs after it.
    @Test func aMeterThatReportsNothingWhileItsStreamIdlesIsGivenItsPatienceWhenItRuns() {
        var idle = speech(2, client: 10)
        idle.activity = .idle
        coordinator.handle(.streamAppeared(idle))
        loop.advance(by: quietness.meterPatience)
        #expect(musicGain == 1.0, "not running: it ducks nobody")
        #expect(!loop.timers.contains { $0.delay == quietness.meterPatience }, "an idle stream costs no timer")
        coordinator.handle(.streamChanged(speech(2, client: 10)))
        #expect(musicGain == 1.0, "running, not heard yet")
        loop.advance(by: quietness.meterPatience)
        #expect(musicGain == 0.3, "no report in its patience once running: judged by whether it runs")
    }

    @Test func aMeterThatReportsNothingCostsNoDuck() {
        coordinator.handle(.streamAppeared(speech(2, client: 10)))
        #expect(musicGain == 1.0)
        loop.advance(by: quietness.meterPatience)
        #expect(musicGain == 0.3, "no report in its patience: judged by whether it runs")
        #expect(backend.watchedLevels.isEmpty)
    }
}
