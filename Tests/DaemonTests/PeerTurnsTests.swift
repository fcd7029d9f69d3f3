import Testing

@testable import AudioSessionDaemon

/// The bus peers' turns: another app's call waits for one item of each other peer, never for a
/// peer's backlog, and each peer's items keep their order.
@Suite struct PeerTurnsTests {
    @Test func aCallBehindAnotherPeersBacklogComesInTheNextRound() {
        var turns = PeerTurns<String>()
        for index in 0..<256 { turns.add("flood \(index)", from: ":1.7") }
        turns.add("ListSessions", from: ":1.9")
        #expect(turns.nextRound() == ["flood 0", "ListSessions"])
        #expect(turns.nextRound() == ["flood 1"])
    }

    @Test func eachPeersItemsKeepTheirOrderAndItsLeavingComesLast() {
        var turns = PeerTurns<String>()
        turns.add("a: CreateSession", from: "a")
        turns.add("b: SetActive", from: "b")
        turns.add("a: SetCategory", from: "a")
        turns.add("a: left", from: "a")
        turns.add("c: GetAll", from: "c")
        var taken: [String] = []
        while !turns.isEmpty { taken += turns.nextRound() }
        #expect(taken == ["a: CreateSession", "b: SetActive", "c: GetAll", "a: SetCategory", "a: left"])
    }

    @Test func aPeerThatComesBackAfterItsQueueEmptiedTakesTheLastPlace() {
        var turns = PeerTurns<Int>()
        turns.add(1, from: "a")
        turns.add(2, from: "b")
        turns.add(3, from: "b")
        #expect(turns.nextRound() == [1, 2])
        turns.add(4, from: "a")
        #expect(turns.nextRound() == [3, 4], "b kept its turn; a, empty in between, comes after it")
        #expect(turns.isEmpty)
        #expect(turns.nextRound().isEmpty)
    }
}
