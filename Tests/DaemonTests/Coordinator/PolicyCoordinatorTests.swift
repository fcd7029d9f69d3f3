import Foundation
import Logging
import PolicyRules
import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// The coordinator's bookkeeping, deterministic: a fake backend, the shipped rules, a virtual
/// loop whose clock the test advances. What PipeWire does is covered by the integration tests; this pins the logic that
/// those only reach by timing (late echoes, idle grace).
@Suite("PolicyCoordinator with a fake backend")
struct PolicyCoordinatorTests {
    let backend = FakeBackend()
    let loop = VirtualLoop()
    let coordinator: PolicyCoordinator
    let speaker = Port(uid: "speaker", nodeID: 40, type: .builtInSpeaker, direction: .output)

    init() throws {
        coordinator = try .onShippedRules(backend, loop: loop)
        coordinator.handle(.attached(streams: [], ports: [speaker], defaultOutput: "speaker", defaultInput: nil))
    }

    func stream(_ id: UInt32, role: String, client: UInt32, activity: StreamActivity = .playing) -> BackendStream {
        BackendStream(
            id: .playback(id), client: client, properties: ["media.role": role], activity: activity,
            appName: "app\(client)", processID: nil)
    }

    @Test func aCallHoldsMusicAndReleasesItWhenTheCallGoes() {
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        backend.clearActions()
        coordinator.handle(.streamAppeared(stream(2, role: "Communication", client: 20)))
        #expect(backend.actions.contains(.hold(1)))
        coordinator.handle(.streamRemoved(2))
        #expect(backend.actions.contains(.release(1)))
    }

    @Test func aHeldStreamGoingIdleIsNotTakenForAStop() {
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        coordinator.handle(.streamAppeared(stream(2, role: "Communication", client: 20)))
        // Unlinked by us, the music goes idle; the idle grace must not count that as a stop ...
        coordinator.handle(.streamChanged(stream(1, role: "Music", client: 10, activity: .idle)))
        loop.advance(by: StreamQuietness.standard.idleGrace)
        backend.clearActions()
        // ... so when the call ends the music is resumed (released), not forgotten.
        coordinator.handle(.streamRemoved(2))
        #expect(backend.actions.contains(.release(1)))
    }

    @Test func anIdleStreamStopsHoldingOthersAfterTheGrace() {
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        coordinator.handle(.streamAppeared(stream(2, role: "Communication", client: 20)))
        backend.clearActions()
        // The call's app stopped its stream but left it open: after the grace it no longer counts.
        coordinator.handle(.streamChanged(stream(2, role: "Communication", client: 20, activity: .idle)))
        #expect(!backend.actions.contains(.release(1)), "not before the grace")
        // A call interrupts others: its grace is the short one, so the music is back promptly.
        #expect(loop.timers.contains { $0.delay == StreamQuietness.standard.quietGrace })
        loop.advance(by: StreamQuietness.standard.quietGrace)
        #expect(backend.actions.contains(.release(1)))
    }

    @Test func aNotificationDucksAStreamThatStartsLater() {
        coordinator.handle(.streamAppeared(stream(2, role: "Notification", client: 20)))
        coordinator.handle(.streamAudible(2, true))  // it ducks once it is heard
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        // The duck reaches the new stream (a ramp starts toward 0.3: the first step is below 1).
        #expect((backend.gains[1] ?? 1.0) < 1.0)
        #expect(backend.gains[2] == nil, "the ducker is not ducked")
    }

    @Test func aLateRunningEchoDoesNotEndAPauseOnUnplug() {
        let headphones = Port(uid: "headphones", nodeID: 41, type: .headphones, direction: .output)
        coordinator.handle(.portAppeared(headphones))
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        coordinator.handle(.streamChanged(stream(1, role: "Music", client: 10, activity: .idle)))
        coordinator.handle(.streamChanged(stream(1, role: "Music", client: 10)))
        backend.clearActions()
        coordinator.handle(.portAvailabilityChanged(uid: "headphones", available: false))
        #expect(backend.actions.contains(.hold(1)), "paused on unplug: \(backend.actions)")
        // The relink that preceded the unplug reports idle, then running, late.
        coordinator.handle(.streamChanged(stream(1, role: "Music", client: 10, activity: .idle)))
        coordinator.handle(.streamChanged(stream(1, role: "Music", client: 10)))
        #expect(!backend.actions.contains(.release(1)), "still paused: \(backend.actions)")
        // The user really plays it again (a pulse client uncorks): then it is released.
        coordinator.handle(.streamChanged(stream(1, role: "Music", client: 10, activity: .pausedByUser)))
        coordinator.handle(.streamChanged(stream(1, role: "Music", client: 10)))
        #expect(backend.actions.contains(.release(1)))
    }

    @Test func anExplicitVoiceChatSessionIsACall() {
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        let owner = SessionOwner(uniqueName: ":1.7", pid: 999_999, uid: 0)
        let call = coordinator.createExplicitSession(app: "voip", owner: owner)
        #expect(coordinator.request(.setCategory(call, .playAndRecord, mode: .voiceChat, options: []), for: call) == nil)
        #expect(coordinator.engine.snapshot(of: call)?.priorityClass.name == "communication")
        backend.clearActions()
        #expect(coordinator.request(.setActive(call, true, options: []), for: call) == nil)
        #expect(backend.actions.contains(.hold(1)), "the music is interrupted: \(backend.actions)")
    }
}

/// The coordinator's deadlines, on the virtual clock: nothing here sleeps.
extension PolicyCoordinatorTests {
    /// An app told of its interruption over the session API has half a second to stop its own
    /// audio; then its streams are held.
    @Test func anExplicitSessionIsHeldAfterItsGraceAndNotBefore() throws {
        // The player is this very process: its stream names its session and comes from its owner.
        let owner = SessionOwner(uniqueName: ":1.9", pid: getpid(), uid: 1000)
        let player = coordinator.createExplicitSession(app: "player", owner: owner)
        #expect(coordinator.request(.setCategory(player, .playback, mode: .default, options: []), for: player) == nil)
        #expect(coordinator.request(.setActive(player, true, options: []), for: player) == nil)
        var own = stream(1, role: "Music", client: 10)
        own.namedSession = player.rawValue
        own.processID = getpid()
        coordinator.handle(.streamAppeared(own))
        backend.clearActions()
        coordinator.handle(.streamAppeared(stream(2, role: "Communication", client: 20)))
        #expect(coordinator.engine.snapshot(of: player)?.activity == .interrupted)
        let grace = EnforcementTiming.standard.interruptionGrace
        loop.advance(by: grace - .milliseconds(1))
        #expect(!backend.actions.contains(.hold(1)), "its own chance first")
        loop.advance(by: .milliseconds(1))
        #expect(backend.actions.contains(.hold(1)), "held after \(grace)")
        coordinator.handle(.streamRemoved(2))
        #expect(backend.actions.contains(.release(1)))
    }

    /// The idle grace of a stream that ducks or interrupts nobody rides out a relink.
    @Test func anIdleMediaStreamStopsCountingAfterItsGraceOnly() {
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        let session = coordinator.sessions.streams[1]!.session
        coordinator.handle(.streamChanged(stream(1, role: "Music", client: 10, activity: .idle)))
        loop.advance(by: StreamQuietness.standard.idleGrace - .milliseconds(1))
        #expect(coordinator.engine.snapshot(of: session)?.activity == .active)
        loop.advance(by: .milliseconds(1))
        #expect(coordinator.engine.snapshot(of: session)?.activity == .inactive)
    }
}
