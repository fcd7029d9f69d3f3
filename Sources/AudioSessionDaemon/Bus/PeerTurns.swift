/// Work from the bus's peers, taken in turns: one item of each peer that has any, round after
/// round.
///
/// Every call a peer makes costs the loop a step, and a peer may have hundreds delivered and
/// unanswered at once (``SessionBus/BusLimits``). Taken first come, first served, one app's
/// backlog (a flood, a burst of huge arguments) kept another app's call waiting behind all of
/// it: seconds on a loaded machine. In turns, another app's call waits for at most one item of
/// each other peer. Each peer's own items stay in the order they came, its leaving the bus
/// after its last call.
struct PeerTurns<Item> {
    private var queues: [String: ArraySlice<Item>] = [:]
    /// Peers with items, in the order their turns come.
    private var turns: [String] = []

    var isEmpty: Bool { turns.isEmpty }

    /// Adds an item of `peer`'s, after its earlier ones.
    mutating func add(_ item: Item, from peer: String) {
        if queues[peer, default: []].isEmpty { turns.append(peer) }
        queues[peer, default: []].append(item)
    }

    /// The next round: the oldest item of each peer that has one, in turn order. A peer with
    /// more keeps its place for the next round.
    mutating func nextRound() -> [Item] {
        let round = turns
        turns.removeAll(keepingCapacity: true)
        var items: [Item] = []
        items.reserveCapacity(round.count)
        for peer in round {
            guard var queue = queues[peer], let item = queue.popFirst() else { continue }
            items.append(item)
            if queue.isEmpty {
                queues[peer] = nil
            } else {
                queues[peer] = queue
                turns.append(peer)
            }
        }
        return items
    }
}
