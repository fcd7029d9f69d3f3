import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// The coordinator's one queue as a value: order, runs that do not nest, the turn a server
/// event leaves for later, and what describes that turn kept until its end.
@Suite("The step queue")
struct StepQueueTests {
    let a = SessionID(1)
    let b = SessionID(2)

    @Test func itemsComeOutInTheOrderTheyWereQueuedDecisionsAndDueWorkAlike() {
        var queue = StepQueue(inbox: DueWorkInbox(loop: VirtualLoop()))
        queue.append([.activated(a), .deactivated(a)])
        queue.append(.withheldActivity(b))
        queue.append([.activated(b)])
        var out: [StepQueue.Item] = []
        while let item = queue.next() { out.append(item) }
        #expect(out == [.decision(.activated(a)), .decision(.deactivated(a)), .due(.withheldActivity(b)), .decision(.activated(b))])
        let after = queue.next()
        #expect(queue.isEmpty && after == nil)
    }

    @Test func aRunDoesNotBeginInsideAnother() {
        var queue = StepQueue(inbox: DueWorkInbox(loop: VirtualLoop()))
        let first = queue.beginRun()
        let nested = queue.beginRun()
        queue.endRun()
        let again = queue.beginRun()
        #expect(first && again)
        #expect(!nested, "what is queued meanwhile is the running one's")
    }

    @Test func onlyAServerEventsTurnWithHoldsWaitingAndMoreToDoYields() {
        var queue = StepQueue(inbox: DueWorkInbox(loop: VirtualLoop()))
        queue.append([.activated(a), .activated(b)])
        #expect(!queue.yields(holdsWaiting: true), "not a server event: everything now")
        _ = queue.beginServerEvent()
        #expect(!queue.yields(holdsWaiting: false))
        #expect(queue.yields(holdsWaiting: true))
        _ = queue.next()
        _ = queue.next()
        #expect(!queue.yields(holdsWaiting: true), "nothing left to leave for later")
    }

    @Test func aServerEventsDecisionsAreAnnouncedAtItsTurnsEndInOrder() {
        var queue = StepQueue(inbox: DueWorkInbox(loop: VirtualLoop()))
        let outer = queue.beginServerEvent()
        let nested = queue.beginServerEvent()
        #expect(outer, "the first event of the turn queues its end")
        #expect(!nested, "a nested one does not")
        let first = queue.announcesNow(.activated(a))
        queue.endServerEvent()
        let second = queue.announcesNow(.activated(b))
        let refreshed = queue.refreshesNowPlayingNow()
        #expect(!first && !second, "kept, the second still inside the outer event")
        #expect(!refreshed)
        queue.endServerEvent()
        let end = queue.takeTurnEnd()
        #expect(end.decisions == [.activated(a), .activated(b)] && end.nowPlayingStale)
        let nothing = queue.takeTurnEnd()
        #expect(!queue.turnEndQueued && nothing.decisions.isEmpty && !nothing.nowPlayingStale)
    }

    @Test func aDecisionOutsideAServerEventGoesAfterThoseKeptBack() {
        var queue = StepQueue(inbox: DueWorkInbox(loop: VirtualLoop()))
        _ = queue.beginServerEvent()
        _ = queue.announcesNow(.activated(a))
        queue.endServerEvent()
        let now = queue.announcesNow(.activated(b))
        let earlier = queue.takeUnannounced()
        let atTheEnd = queue.takeTurnEnd()
        #expect(now)
        #expect(earlier == [.activated(a)], "handed over first")
        #expect(atTheEnd.decisions.isEmpty)
    }

    @Test func onlyTheOutermostStepsEndIsJournalled() {
        var queue = StepQueue(inbox: DueWorkInbox(loop: VirtualLoop()))
        queue.openStep()
        queue.openStep()
        let inner = queue.closeStep()
        let outer = queue.closeStep()
        #expect(!inner && outer)
    }
}
