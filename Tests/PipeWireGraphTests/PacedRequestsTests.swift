@testable import PipeWireGraph
import Testing

/// Pure tests of how expensive requests are paced: no PipeWire needed.
@Suite struct PacedRequestsTests {
    private func admit(_ ids: [Int], to paced: inout PacedRequests<Int>) -> [PacedRequests<Int>.Admission] {
        ids.map { paced.admit($0) }
    }

    @Test func theFirstRequestsOfABurstGoAheadAndTheRestFollowOneRoundTripLater() {
        var paced = PacedRequests<Int>(goingAhead: 2)
        let admissions = admit(Array(1...20), to: &paced)
        #expect(admissions == [.send, .sendThenRoundTrip] + Array(repeating: .queued, count: 18))
        #expect(paced.roundTripDone() == Array(3...20))
        #expect(paced.pending.isEmpty && !paced.awaitingServer)
    }

    @Test func theNextBurstGoesAheadAgain() {
        var paced = PacedRequests<Int>(goingAhead: 2)
        _ = admit([1, 2, 3], to: &paced)
        #expect(paced.roundTripDone() == [3])
        #expect(admit([4, 5, 6], to: &paced) == [.send, .sendThenRoundTrip, .queued])
    }

    @Test func aCancelledRequestIsNeverSent() {
        var paced = PacedRequests<Int>(goingAhead: 1)
        #expect(admit([1, 2, 3], to: &paced) == [.sendThenRoundTrip, .queued, .queued])
        let cancelledQueued = paced.cancel(2)
        let cancelledSent = paced.cancel(1)
        #expect(cancelledQueued && !cancelledSent)
        #expect(paced.roundTripDone() == [3])
    }

    @Test func aLostConnectionDropsEverythingQueued() {
        var paced = PacedRequests<Int>(goingAhead: 1)
        _ = admit([1, 2], to: &paced)
        paced.reset()
        #expect(paced.pending.isEmpty)
        #expect(admit([3], to: &paced) == [.sendThenRoundTrip])
    }
}
