import Foundation
import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// When a server event's holds wait to be sent (PipeWire sends nothing until the event is
/// handled), the coordinator leaves the event's other decisions for the loop's next turn —
/// and nothing it does later sees them half carried out.
@Suite("Decisions left for the loop's next turn")
struct DeferredDecisionsTests {
    let speaker = Port(uid: "speaker", nodeID: 40, type: .builtInSpeaker, direction: .output)

    func music(_ id: UInt32, client: UInt32) -> BackendStream {
        BackendStream(
            id: .playback(id), client: client, properties: ["media.role": "Music"], activity: .playing,
            appName: "player\(client)", processID: nil)
    }

    var call: BackendStream {
        BackendStream(
            id: .playback(9), client: 90, properties: ["media.role": "Communication"], activity: .playing,
            appName: "softphone", processID: nil)
    }

    /// Three players, each its own session, and a coordinator whose backend batches holds or not.
    func playing(batched: Bool) throws -> (PolicyCoordinator, FakeBackend, VirtualLoop) {
        let backend = FakeBackend()
        let loop = VirtualLoop()
        let coordinator = try PolicyCoordinator.onShippedRules(backend, loop: loop)
        coordinator.handle(.attached(streams: [], ports: [speaker], defaultOutput: "speaker", defaultInput: nil))
        for client in UInt32(1)...3 { coordinator.handle(.streamAppeared(music(client, client: client))) }
        loop.runQueued()
        backend.clearActions()
        backend.holdsWaitForTheEvent = batched
        return (coordinator, backend, loop)
    }

    func holds(_ backend: FakeBackend) -> [FakeBackend.Action] {
        backend.actions.filter { if case .hold = $0 { true } else { false } }
    }

    @Test func aCallHoldsTheFirstSessionNowAndTheOthersInTheNextTurnInTheSameOrder() throws {
        let (plain, plainBackend, plainLoop) = try playing(batched: false)
        plain.handle(.streamAppeared(call))
        plainLoop.runQueued()
        let everyHold = holds(plainBackend)
        #expect(everyHold.count == 3)

        let (coordinator, backend, loop) = try playing(batched: true)
        coordinator.handle(.streamAppeared(call))
        #expect(holds(backend) == Array(everyHold.prefix(1)))
        loop.runQueued()
        #expect(holds(backend) == everyHold)
        #expect(backend.actions == plainBackend.actions)
    }

    @Test func theNextServerEventFindsTheDecisionsLeftForLaterCarriedOut() throws {
        let (coordinator, backend, _) = try playing(batched: true)
        coordinator.handle(.streamAppeared(call))
        #expect(holds(backend).count == 1)
        coordinator.handle(.streamAppeared(music(4, client: 4)))  // before the loop's next turn
        let fourth = backend.actions.firstIndex(of: .hold(.playback(4)))
        let heldBefore = backend.actions.prefix(upTo: fourth ?? backend.actions.endIndex)
        #expect(heldBefore.filter { if case .hold = $0 { true } else { false } }.count == 3)
    }

    @Test func theCoordinatorsLoopCatchesUpBeforeTimersAndQueuedWork() {
        final class Record: @unchecked Sendable { var events: [String] = [] }
        let record = Record()
        let base = VirtualLoop()
        let loop = CatchingUpLoop(base)
        loop.catchUp.wire { record.events.append("catch up") }
        _ = loop.schedule(after: .milliseconds(5)) { record.events.append("timer") }
        loop.performLater { record.events.append("later") }
        base.advance(by: .milliseconds(10))
        #expect(record.events == ["catch up", "later", "catch up", "timer"])
        loop.perform { record.events.append("at once") }  // on the loop: nothing is left half done
        #expect(record.events.last == "at once" && record.events.count == 5)
    }
}
