@testable import PipeWireGraph
import Testing

/// Pure tests of how expensive requests are paced: no PipeWire needed.
@Suite struct PacedRequestsTests {
    private func admit(_ ids: [Int], to paced: inout PacedRequests<Int>) -> [PacedRequests<Int>.Admission] {
        ids.map { paced.admit($0) }
    }

    @Test func aBurstGoesOutInDoublingBatchesOneRoundTripApart() {
        var paced = PacedRequests<Int>(initialBudget: 2)
        let admissions = admit(Array(1...20), to: &paced)
        #expect(admissions == [.send, .sendThenRoundTrip] + Array(repeating: .queued, count: 18))
        var batches: [[Int]] = []
        while true {
            let (batch, roundTrip) = paced.roundTripDone()
            if !batch.isEmpty { batches.append(batch) }
            if !roundTrip { break }
        }
        #expect(batches == [Array(3...6), Array(7...14), Array(15...20)])
        #expect(paced.pending.isEmpty)
    }

    @Test func theNextBurstStartsSmallAgain() {
        var paced = PacedRequests<Int>(initialBudget: 2)
        _ = admit([1, 2, 3], to: &paced)
        let first = paced.roundTripDone()
        #expect(first.batch == [3] && !first.roundTrip)
        #expect(admit([4, 5, 6], to: &paced) == [.send, .sendThenRoundTrip, .queued])  // the burst was over
    }

    @Test func aCancelledRequestIsNeverSent() {
        var paced = PacedRequests<Int>(initialBudget: 1)
        #expect(admit([1, 2, 3], to: &paced) == [.sendThenRoundTrip, .queued, .queued])
        let cancelledQueued = paced.cancel(2)
        let cancelledSent = paced.cancel(1)
        #expect(cancelledQueued && !cancelledSent)
        let next = paced.roundTripDone()
        #expect(next.batch == [3] && !next.roundTrip)
    }

    @Test func aLostConnectionDropsEverythingQueued() {
        var paced = PacedRequests<Int>(initialBudget: 1)
        _ = admit([1, 2], to: &paced)
        paced.reset()
        #expect(paced.pending.isEmpty)
        #expect(admit([3], to: &paced) == [.sendThenRoundTrip])
    }
}
