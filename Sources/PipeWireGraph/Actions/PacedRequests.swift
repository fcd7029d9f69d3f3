/// Requests that are expensive for the server, sent in growing batches, one batch per
/// round-trip ("slow start").
///
/// PipeWire handles a client's messages in one go and sends the resulting events only after
/// the last one: a destroyed link costs the server a synchronous hop to its data thread, so
/// two hundred destroys sent together (a call holding a hundred stereo streams) kept every
/// client, and the first stream's silence, waiting ~9 ms. Sent as 2, 4, 8, … per round-trip,
/// the first stream is cut off after two destroys, the server stays responsive in between,
/// and the whole batch takes only a handful of extra round-trips.
struct PacedRequests<ID: Hashable> {
    /// How many requests may go before the first round-trip of a burst.
    let initialBudget: Int
    private(set) var pending: [ID] = []
    private var queued: Set<ID> = []
    private var budget: Int
    private var sentSinceRoundTrip = 0
    /// The budget is spent and a round-trip is under way: requests wait in `pending`.
    private(set) var awaitingServer = false

    init(initialBudget: Int = 2) {
        self.initialBudget = initialBudget
        self.budget = initialBudget
    }

    /// What the caller does with a request it hands in.
    enum Admission: Equatable {
        /// Send it now.
        case send
        /// Send it now, then ask the server for a round-trip and call ``roundTripDone()``.
        case sendThenRoundTrip
        /// Queued: it goes out in a later batch (or never, if cancelled).
        case queued
    }

    mutating func admit(_ id: ID) -> Admission {
        if awaitingServer {
            if queued.insert(id).inserted { pending.append(id) }
            return .queued
        }
        sentSinceRoundTrip += 1
        guard sentSinceRoundTrip >= budget else { return .send }
        awaitingServer = true
        return .sendThenRoundTrip
    }

    /// Drops a queued request that is no longer wanted; false if it was not queued (or sent).
    @discardableResult
    mutating func cancel(_ id: ID) -> Bool {
        guard queued.remove(id) != nil else { return false }
        pending.removeAll { $0 == id }
        return true
    }

    /// The round-trip came back: the next, twice larger batch to send now, and whether it
    /// needs a round-trip of its own (more are queued). The batch that empties the queue ends
    /// the burst.
    mutating func roundTripDone() -> (batch: [ID], roundTrip: Bool) {
        awaitingServer = false
        sentSinceRoundTrip = 0
        guard !pending.isEmpty else {
            budget = initialBudget  // the burst is over: the next one starts small again
            return ([], false)
        }
        budget *= 2
        let batch = Array(pending.prefix(budget))
        pending.removeFirst(batch.count)
        for id in batch { queued.remove(id) }
        if pending.isEmpty {
            budget = initialBudget  // the last batch of the burst: the next one starts small
            return (batch, false)
        }
        sentSinceRoundTrip = batch.count
        awaitingServer = true
        return (batch, true)
    }

    /// The connection is gone: nothing queued can be sent any more.
    mutating func reset() {
        pending = []
        queued = []
        budget = initialBudget
        sentSinceRoundTrip = 0
        awaitingServer = false
    }
}
