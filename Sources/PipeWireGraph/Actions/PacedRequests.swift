/// Requests that are expensive for the server, paced: the first ones of a burst go ahead
/// alone, the rest follow together one round-trip later.
///
/// PipeWire handles a client's messages in one go and sends the resulting events only after
/// the last one: a destroyed link costs the server a synchronous hop to its data thread, so
/// two hundred destroys sent together (a call holding a hundred stereo streams) kept the
/// first stream's silence waiting ~9 ms for the last destroy. With the first stream's two
/// destroys sent ahead, it is cut off in about a millisecond and the rest cost one extra
/// round-trip. (Batches growing ×2 or ×4 per round-trip were measured too: every extra
/// round-trip also waits for our own handling of the last batch's events, and the whole
/// burst took up to twice as long.)
struct PacedRequests<ID: Hashable> {
    /// How many requests of a burst go ahead of the first round-trip.
    let goingAhead: Int
    private(set) var pending: [ID] = []
    private var queued: Set<ID> = []
    private var sentSinceRoundTrip = 0
    /// The requests going ahead were sent and their round-trip is under way: the rest wait in
    /// `pending`.
    private(set) var awaitingServer = false

    init(goingAhead: Int = 2) {
        self.goingAhead = goingAhead
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
        guard sentSinceRoundTrip >= goingAhead else { return .send }
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

    /// The round-trip came back: everything still queued, to send now. The burst is over.
    mutating func roundTripDone() -> [ID] {
        awaitingServer = false
        sentSinceRoundTrip = 0
        let batch = pending
        pending = []
        queued = []
        return batch
    }

    /// The connection is gone: nothing queued can be sent any more.
    mutating func reset() {
        pending = []
        queued = []
        sentSinceRoundTrip = 0
        awaitingServer = false
    }
}
