import Foundation
import Logging
import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// Enforcement for every backend, deterministic: a fake backend (every stream's own volume is
/// 1.0 there) on a virtual loop, a real journal in a directory of its own.
@Suite("Enforcement: gain, holds, hardware and undo")
struct EnforcementUnitTests {
    let backend = FakeBackend()
    let loop = VirtualLoop()
    let directory = URL.temporaryStateDirectory()
    let enforcement: Enforcement
    var ramps: GainEnforcement { enforcement.gain }

    init() {
        enforcement = Enforcement(
            backend: backend, loop: loop, stateDirectory: directory, timing: .standard, logger: Logger(label: "test"))
        enforcement.attached()
    }

    /// What the journal file says now (nil: no file, nothing to undo).
    var journalled: EnforcementJournal? {
        let file = JournalFile<EnforcementJournal>(directory: directory, logger: Logger(label: "test"))
        return FileManager.default.fileExists(atPath: file.url.path) ? file.read() : nil
    }

    // MARK: - Gain: stepped on one clock

    @Test func silencingIsImmediate() {
        ramps.ramp(1, to: 0.0, over: .zero)
        #expect(backend.gains[1] == 0.0)
        #expect(loop.timers.isEmpty, "no steps")
    }

    @Test func aDuckUndoneMidRampTurnsBackFromTheLevelReachedAndEndsExactlyOnTheBase() {
        ramps.ramp(1, to: 0.3, over: .milliseconds(250))
        loop.advance(by: .milliseconds(100))
        let reached = backend.gains[1] ?? 1.0
        #expect(reached < 1.0 && reached > 0.3, "part of the way down: \(reached)")
        var written: [Double] = []
        ramps.ramp(1, to: 1.0, over: .milliseconds(500))
        written.append(backend.gains[1] ?? 0)
        for _ in 0..<60 {
            loop.advance(by: .milliseconds(10))
            written.append(backend.gains[1] ?? 0)
        }
        #expect(written.first.map { $0 > reached && $0 < 1.0 } == true, "the first step up starts from \(reached): \(written.prefix(3))")
        #expect(zip(written, written.dropFirst()).allSatisfy { $0 <= $1 }, "only up from there: \(written)")
        #expect(backend.gains[1] == 1.0, "exactly the base at the end")
        #expect(loop.timers.isEmpty)
        #expect(journalled == nil, "nothing of ours is left to undo")
    }

    @Test func theDaemonStepsItAndEndsExactlyOnTheTarget() {
        ramps.ramp(1, to: 0.3, over: .milliseconds(250))
        let first = backend.gains[1] ?? 1.0
        #expect(first < 1.0 && first > 0.3, "the first step is written at once: \(first)")
        #expect(loop.timers.count == 1 && loop.timers.first?.delay == .milliseconds(10), "the next step is scheduled")
        loop.advance(by: .milliseconds(120))
        let halfway = backend.gains[1] ?? 1.0
        #expect(halfway < first && halfway > 0.3, "half the ramp in, half the way down: \(halfway)")
        loop.advance(by: .milliseconds(200))
        #expect(backend.gains[1].map { abs($0 - 0.3) < 1e-6 } == true)
        #expect(loop.timers.isEmpty, "done: no more steps")
    }

    @Test func everySteppedRampAdvancesOnOneClock() {
        for stream in 1...100 { ramps.ramp(StreamID(.playback, UInt32(stream)), to: 0.3, over: .milliseconds(250)) }
        #expect(backend.gains.count == 100, "every first step is written at once")
        #expect(loop.timers.count == 1, "one timer for all of them, not \(loop.timers.count)")
        loop.advance(by: .milliseconds(5))
        ramps.ramp(101, to: 0.0, over: .milliseconds(100))  // one started between two ticks
        #expect(loop.timers.count == 1)
        loop.advance(by: .milliseconds(100))
        let halfway = backend.gains[1] ?? 1.0
        #expect(backend.gains[101].map { $0 < 0.1 } == true, "the late ramp keeps its own shape: \(String(describing: backend.gains[101]))")
        #expect((2...100).allSatisfy { backend.gains[StreamID(.playback, UInt32($0))] == halfway }, "one batch: every ramp at the same step")
        ramps.forget(1)
        loop.advance(by: .milliseconds(200))
        #expect((2...100).allSatisfy { backend.gains[StreamID(.playback, UInt32($0))].map { abs($0 - 0.3) < 1e-6 } == true })
        #expect(backend.gains[101] == 0.0)
        #expect(loop.timers.isEmpty, "the clock stops with the last ramp")
    }

    // MARK: - Gain: our factor, the user's volume

    @Test func theUsersTakeoverForgetsOurFactorSoTheUnduckWritesNothing() {
        ramps.ramp(1, to: 0.3, over: .zero)
        enforcement.volumeReported(0.3, of: 1)  // ours landed
        enforcement.volumeReported(0.8, of: 1)  // the user set 0.8 while it was ducked
        let writes = backend.volumeWrites
        ramps.ramp(1, to: 1.0, over: .milliseconds(500))
        loop.advance(by: .milliseconds(600))
        #expect(backend.volumeWrites == writes, "the unduck writes nothing: the user's volume is theirs")
        #expect(journalled == nil, "nothing of ours is left to undo")
    }

    /// The user set a volume just before our duck reached the server: ours lands over theirs.
    /// Forgetting our factor then would leave the stream at our ducked volume for good, with
    /// nothing journalled to undo it: theirs is written again instead, after ours.
    @Test func aUsersVolumeSetJustBeforeOurDuckLandedIsWrittenAgainAndWins() {
        ramps.ramp(1, to: 0.3, over: .zero)
        loop.runQueued()
        #expect(journalled?.streams["1"]?.baseVolume == 1.0)
        enforcement.volumeReported(0.8, of: 1)  // the user's, applied before ours
        #expect(backend.gains[1].map { abs($0 - 0.8) < 1e-6 } == true, "theirs written after ours: \(backend.gains)")
        loop.runQueued()
        #expect(journalled == nil, "nothing of ours is left to undo")
        let writes = backend.volumeWrites
        ramps.ramp(1, to: 1.0, over: .milliseconds(500))
        loop.advance(by: .milliseconds(600))
        #expect(backend.volumeWrites == writes, "the unduck writes nothing over theirs")
    }

    @Test func ourOwnWriteComingBackIsNoTakeover() {
        ramps.ramp(1, to: 0.5, over: .zero)
        enforcement.volumeReported(0.5, of: 1)
        ramps.ramp(1, to: 1.0, over: .zero)
        #expect(backend.gains[1] == 1.0, "the unduck is written")
    }

    @Test(arguments: [true, false])
    func theStreamPuttingItsOwnVolumeBackGetsOursAgain(oursReportedFirst: Bool) {
        ramps.ramp(1, to: 0.5, over: .zero)
        // Ours reported, then the stream's own (format negotiated: pw_stream re-applies its
        // controls); or the server folded both into one report.
        if oursReportedFirst { enforcement.volumeReported(0.5, of: 1) }
        let writes = backend.volumeWrites
        enforcement.volumeReported(1.0, of: 1)
        #expect(backend.volumeWrites == writes + 1 && backend.gains[1] == 0.5, "our factor is written again")
        enforcement.volumeReported(0.5, of: 1)
        enforcement.volumeReported(0.5, of: 1)
        #expect(backend.volumeWrites == writes + 1, "its coming back is ours")
    }

    @Test func aDuckIsJournalledWithItsBaseAndTheUnduckClearsIt() throws {
        ramps.ramp(1, to: 0.3, over: .zero)
        loop.runQueued()  // the journal is written in the loop's next turn
        #expect(journalled?.streams["1"]?.baseVolume == 1.0)
        ramps.ramp(1, to: 1.0, over: .zero)
        loop.runQueued()
        #expect(journalled == nil)
    }

    // MARK: - Holds and mutes

    @Test func aStreamItsUserMutedIsNeitherMutedByUsNorUnmuted() {
        backend.writeMute(true, of: 1)  // the user's mute
        backend.clearActions()
        enforcement.holds.setMuted(true, 1)
        enforcement.holds.setMuted(false, 1)
        #expect(backend.actions.isEmpty, "\(backend.actions)")
        #expect(backend.muted.contains(1))
    }

    @Test func aStepsChangesAreOnDiskWhenTheStepEndsBeforeTheLoopSendsThem() {
        ramps.ramp(1, to: 0.3, over: .zero)
        enforcement.holds.setMuted(true, 2)
        enforcement.stepDone()  // no loop turn in between: a SIGKILL now leaves nothing unknown
        #expect(journalled?.streams["1"]?.baseVolume == 1.0)
        #expect(journalled?.streams["2"]?.mutedByPolicy == true)
    }

    @Test func aPolicyMuteIsJournalledBeforeItGoesOutAndLifted() {
        enforcement.holds.setMuted(true, 1)
        loop.runQueued()
        #expect(journalled?.streams["1"]?.mutedByPolicy == true)
        enforcement.holds.setMuted(false, 1)
        #expect(backend.actions == [.mute(1, true), .mute(1, false)])
    }

    /// The user unmuted the held stream, then muted it again themselves: the mute is theirs
    /// now, and neither the hold's end nor the exit lifts it.
    @Test func aMuteItsUserTookBackAndSetAgainIsNotLifted() {
        enforcement.holds.setMuted(true, 1)
        enforcement.muteReported(true, of: 1)  // ours landed
        backend.writeMute(false, of: 1)  // the user's mixer
        enforcement.muteReported(false, of: 1)
        backend.writeMute(true, of: 1)  // and their own mute
        enforcement.muteReported(true, of: 1)
        backend.clearActions()
        enforcement.holds.setMuted(false, 1)
        enforcement.undoAll()
        #expect(backend.actions.isEmpty, "\(backend.actions)")
        #expect(backend.muted.contains(1))
        #expect(journalled == nil)
    }

    // MARK: - Input gain

    static let mic = DeviceID(.input, 40)

    @Test func anInputGainIsJournalledWrittenAndGivenBack() {
        backend.inputVolumes[Self.mic] = 0.8
        enforcement.inputGains.apply(0.5, to: Self.mic)
        #expect(backend.inputVolumes[Self.mic] == 0.5)
        loop.runQueued()
        #expect(journalled?.inputGains?["mic-40"] == .init(original: 0.8, originalLevels: [0.8, 0.8], written: 0.5))
        enforcement.inputGains.volumeReported(0.5, of: Self.mic)
        enforcement.inputGains.apply(nil, to: Self.mic)
        #expect(backend.inputVolumes[Self.mic] == 0.8)
        loop.runQueued()
        #expect(journalled?.inputGains == nil)
    }

    @Test func aVolumeItsUserSetSinceStays() {
        backend.inputVolumes[Self.mic] = 0.8
        enforcement.inputGains.apply(0.5, to: Self.mic)
        enforcement.inputGains.volumeReported(0.8, of: Self.mic)  // a report from before our write
        enforcement.inputGains.volumeReported(0.5, of: Self.mic)  // ours
        backend.inputVolumes[Self.mic] = 0.3
        enforcement.inputGains.volumeReported(0.3, of: Self.mic)  // the user's slider
        backend.clearActions()
        enforcement.inputGains.apply(nil, to: Self.mic)
        enforcement.undoAll()
        #expect(backend.actions.isEmpty, "nothing is written over the user's volume")
        #expect(backend.inputVolumes[Self.mic] == 0.3)
    }

    /// The user moved the slider just before our gain reached the server: ours overwrote it,
    /// and the volume given back is the one they chose last, not the one before.
    @Test func aVolumeItsUserSetJustBeforeOurGainLandedIsTheOneGivenBack() {
        backend.inputVolumes[Self.mic] = 0.8
        enforcement.inputGains.apply(0.5, to: Self.mic)
        backend.inputVolumes[Self.mic] = 0.3
        enforcement.inputGains.volumeReported(0.3, of: Self.mic)  // the user's, applied before ours
        backend.inputVolumes[Self.mic] = 0.5
        enforcement.inputGains.volumeReported(0.5, of: Self.mic)  // ours over it
        loop.runQueued()
        #expect(journalled?.inputGains?["mic-40"]?.original == 0.3, "a crash now gives back the user's latest")
        enforcement.inputGains.apply(nil, to: Self.mic)
        #expect(backend.inputVolumes[Self.mic] == 0.3)
    }

    @Test func aDeactivationBeforeTheGainIsReportedStillGivesTheUsersVolumeBack() {
        backend.inputVolumes[Self.mic] = 0.8
        enforcement.inputGains.apply(0.5, to: Self.mic)
        backend.inputVolumes[Self.mic] = 0.8  // our write is on its way: the mirror still says 0.8
        enforcement.inputGains.apply(nil, to: Self.mic)
        #expect(backend.actions.last == .inputVolume(Self.mic, 0.8), "\(backend.actions)")
        // Our gain reported late, then the user's volume: activated again in between, the
        // session's gain does not take ours for the user's.
        backend.inputVolumes[Self.mic] = 0.5
        enforcement.inputGains.volumeReported(0.5, of: Self.mic)
        enforcement.inputGains.apply(0.5, to: Self.mic)
        enforcement.inputGains.apply(nil, to: Self.mic)
        #expect(backend.inputVolumes[Self.mic] == 0.8)
    }

    /// Deactivated and activated again before the give-back was reported: the mirror still
    /// says our gain, so it looked applied, nothing was written, and the give-back's late
    /// report was then taken for its user's choice: the microphone stayed at its user's
    /// volume with the session active (seen once in ten runs on PulseAudio).
    @Test func aGainAppliedAgainBeforeTheGiveBackIsReportedIsWritten() {
        backend.inputVolumes[Self.mic] = 0.8
        enforcement.inputGains.apply(0.5, to: Self.mic)
        enforcement.inputGains.volumeReported(0.5, of: Self.mic)
        enforcement.inputGains.apply(nil, to: Self.mic)
        #expect(backend.inputVolumes[Self.mic] == 0.8)
        backend.inputVolumes[Self.mic] = 0.5  // the give-back is on its way: the mirror still says 0.5
        backend.clearActions()
        enforcement.inputGains.apply(0.5, to: Self.mic)
        #expect(backend.actions == [.inputVolume(Self.mic, 0.5)], "written again, behind the give-back")
        enforcement.inputGains.volumeReported(0.8, of: Self.mic)  // the give-back, late
        enforcement.inputGains.volumeReported(0.5, of: Self.mic)  // our gain again
        enforcement.inputGains.apply(nil, to: Self.mic)
        #expect(backend.inputVolumes[Self.mic] == 0.8, "its user's volume comes back at the end")
    }

    @Test func exitGivesBackAGainWhoseWriteIsStillOnItsWay() {
        backend.inputVolumes[Self.mic] = 0.8
        enforcement.inputGains.apply(0.5, to: Self.mic)
        enforcement.undoAll()
        #expect(backend.inputVolumes[Self.mic] == 0.8)
        #expect(journalled == nil)
    }

    @Test func theNextStartGivesBackAGainACrashedRunLeft() {
        backend.inputVolumes[Self.mic] = 0.8
        enforcement.inputGains.apply(0.5, to: Self.mic)
        loop.runQueued()
        let next = FakeBackend()
        next.inputVolumes[Self.mic] = 0.5
        next.inputVolumes[DeviceID(.input, 41)] = 0.5
        let restarted = Enforcement(
            backend: next, loop: loop, stateDirectory: directory, timing: .standard, logger: Logger(label: "test"))
        restarted.attached()
        #expect(next.inputVolumes[Self.mic] == 0.8)
        #expect(next.inputVolumes[DeviceID(.input, 41)] == 0.5, "another device is not touched")
        #expect(journalled == nil)
    }

    @Test func aGainTheServerBringsBackAfterARestartIsGivenBackAndNotTakenForTheUsers() {
        backend.inputVolumes[Self.mic] = 0.8
        enforcement.inputGains.apply(0.5, to: Self.mic)
        enforcement.inputGains.volumeReported(0.5, of: Self.mic)
        enforcement.lost()  // PipeWire restarts; its session manager restores the mic at our 0.5
        loop.runQueued()
        #expect(journalled?.inputGains?["mic-40"]?.written == 0.5, "kept across the restart")
        backend.clearActions()
        backend.inputVolumes[Self.mic] = 0.5
        enforcement.attached()
        #expect(backend.actions == [.inputVolume(Self.mic, 0.8)], "the user's volume back")
        // The policy applies the session's gain again before the write above was reported.
        backend.inputVolumes[Self.mic] = 0.5
        enforcement.inputGains.apply(0.5, to: Self.mic)
        enforcement.inputGains.apply(nil, to: Self.mic)
        #expect(backend.inputVolumes[Self.mic] == 0.8, "the user's volume, not our gain taken for it")
    }

    @Test func aCardRouteIsJournalledSelectedAndGivenBack() {
        let card = DeviceID(.input, 41)
        backend.inputVolumes[card] = 1  // named mic-41
        backend.selectedDataSources[card] = 3
        enforcement.dataSources.apply(2, to: card)
        #expect(backend.selectedDataSources[card] == 2)
        loop.runQueued()
        #expect(journalled?.dataSources?["mic-41"] == .init(original: 3, written: 2))
        enforcement.dataSources.apply(nil, to: card)
        #expect(backend.selectedDataSources[card] == 3)
        // The user picks another route after ours landed: theirs stays.
        enforcement.dataSources.selectionReported(3, of: card)
        enforcement.dataSources.apply(2, to: card)
        enforcement.dataSources.selectionReported(2, of: card)
        backend.selectedDataSources[card] = 1
        enforcement.dataSources.selectionReported(1, of: card)
        backend.clearActions()
        enforcement.undoAll()
        #expect(backend.actions.isEmpty, "\(backend.actions)")
        #expect(backend.selectedDataSources[card] == 1)
    }

    /// The user picked a route just before our switch reached the server: ours lands over
    /// theirs, so the give-back must bring back theirs — not leave ours behind because the
    /// card, as last reported, showed neither ours nor the route it had.
    @Test func aRouteItsUserPickedJustBeforeOursLandedIsTheOneGivenBack() {
        let card = DeviceID(.input, 41)
        backend.inputVolumes[card] = 1
        backend.selectedDataSources[card] = 3
        enforcement.dataSources.apply(2, to: card)
        backend.selectedDataSources[card] = 1  // the server's report: the user's pick, applied before ours
        enforcement.dataSources.selectionReported(1, of: card)
        loop.runQueued()
        #expect(journalled?.dataSources?["mic-41"] == .init(original: 1, written: 2), "a crash now gives back the user's latest")
        backend.clearActions()
        enforcement.dataSources.apply(nil, to: card)
        #expect(backend.actions == [.dataSource(card, 1)], "\(backend.actions)")
    }

    @Test func aHeadsetProfileItsUserPickedAfterOursStaysAndOneBeforeOursIsGivenBack() {
        let headset = "bluez_card.00_11_22_33_44_55"
        backend.headsetProfiles[headset] = 1
        enforcement.headsetProfiles.apply(.call, to: headset)
        #expect(backend.actions == [.headsetProfile(headset, 2)])
        enforcement.headsetProfiles.profileReported(2, of: headset)
        backend.headsetProfiles[headset] = 3  // the user's mixer, after ours landed
        enforcement.headsetProfiles.profileReported(3, of: headset)
        backend.clearActions()
        enforcement.headsetProfiles.apply(nil, to: headset)
        #expect(backend.actions.isEmpty, "\(backend.actions)")

        backend.headsetProfiles[headset] = 1
        enforcement.headsetProfiles.apply(.call, to: headset)
        backend.headsetProfiles[headset] = 3  // picked before ours landed
        enforcement.headsetProfiles.profileReported(3, of: headset)
        backend.clearActions()
        enforcement.headsetProfiles.apply(nil, to: headset)
        #expect(backend.actions == [.headsetProfile(headset, 3)], "\(backend.actions)")
    }

    // MARK: - Nothing left behind

    @Test func exitUndoesEveryChangeAndWritesNothingAfter() {
        ramps.ramp(1, to: 0.3, over: .milliseconds(250))
        enforcement.holds.setMuted(true, 2)
        enforcement.hardware.apply(HardwareChoice(sampleRate: 96_000, quantum: 64))
        enforcement.undoAll()
        #expect(backend.gains[1] == 1.0)
        #expect(!backend.muted.contains(2))
        #expect(backend.forcedQuantum == nil && backend.forcedSampleRate == nil)
        #expect(journalled == nil)
        backend.clearActions()
        loop.advance(by: .seconds(1))  // the ramp's remaining steps
        #expect(backend.gains[1] == 1.0, "no step after the undo")
    }

    @Test func theNextStartUndoesWhatACrashedRunLeftAndOnlyThat() {
        ramps.ramp(1, to: 0.3, over: .zero)
        enforcement.holds.setMuted(true, .capture(1))
        enforcement.hardware.apply(HardwareChoice(quantum: 64))
        loop.runQueued()
        // SIGKILL: nothing undone. The next run finds the journal.
        let next = FakeBackend()
        next.writeVolume(0.3, of: 1)
        next.writeMute(true, of: .capture(1))
        next.forceQuantum(64)
        let restarted = Enforcement(
            backend: next, loop: loop, stateDirectory: directory, timing: .standard, logger: Logger(label: "test"))
        restarted.attached()
        #expect(next.gains[1] == 1.0)
        #expect(!next.muted.contains(.capture(1)), "a capture stream is its own entry")
        #expect(next.forcedQuantum == nil)
        #expect(journalled == nil)
    }

    @Test func aQuantumSomeoneElseForcedSinceIsNotTouched() {
        enforcement.hardware.apply(HardwareChoice(quantum: 64))
        backend.forceQuantum(128)  // the user's pw-metadata, after ours
        backend.clearActions()
        enforcement.undoAll()
        #expect(backend.actions.isEmpty, "\(backend.actions)")
    }
}
