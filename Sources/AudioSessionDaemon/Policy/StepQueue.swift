import SessionPolicy

/// The coordinator's one run-to-completion queue, and what describes a server event's turn.
///
/// Every engine decision is carried out from here, in the order the engine made them, and so
/// is a component's work that must see what came before it carried out
/// (``FollowUp/then(_:)``). An event that carrying out a decision causes is decided by the
/// engine at once, and its decisions join the end of the queue: no step begins inside another,
/// and nothing needs to know whether it runs nested.
///
/// A turn begun by an audio server event may end before the queue is empty: once holds it
/// asked wait to be sent (``AudioBackend/holdsWaiting``), the rest waits for the loop's next
/// turn, so a call that cuts off a hundred streams has the first cut off before the others are
/// worked out. Whatever reaches the coordinator next finds the queue emptied first
/// (``CatchingUpLoop``). What describes a server event's turn — its decisions on the bus, the
/// Now Playing player — goes out after what it sent (``takeTurnEnd()``).
///
/// A value (beside its entrance, ``inbox``, and its exit, ``hooks``): the coordinator runs it
/// (``PolicyCoordinator``'s `run()`), one item at a time.
struct StepQueue {
    enum Item: Equatable {
        case decision(PolicyDecision)
        case due(DueWork)
    }

    /// The queue's entrance for due work: where the components' timers and answers come back.
    let inbox: DueWorkInbox
    /// The queue's exit to the bus side: where decisions are announced, now or at a turn's end.
    var hooks = BusHooks()
    private var items: [Item] = []
    private var head = 0
    /// An item is being carried out: what it causes is queued, not carried out inside it.
    private(set) var isRunning = false
    /// Open steps (an event, a run): what they changed is journalled when the outermost ends.
    private var openSteps = 0
    /// Audio server events being handled (nested when a backend reports inside one).
    private var serverEvents = 0
    /// The turn's end (``takeTurnEnd()``) is queued on the loop.
    private(set) var turnEndQueued = false
    /// Decisions of a server event's turn not yet handed to the bus side.
    private var unannounced: [PolicyDecision] = []
    /// The Now Playing player changed during a server event's turn.
    private var nowPlayingStale = false

    /// Engine steps carried out so far (events, reconfigurations).
    private(set) var engineSteps: UInt64 = 0

    init(inbox: DueWorkInbox) {
        self.inbox = inbox
    }

    var isEmpty: Bool { head == items.count }
    var inServerEvent: Bool { serverEvents > 0 }

    mutating func countEngineStep() { engineSteps &+= 1 }

    mutating func append(_ decisions: [PolicyDecision]) {
        for decision in decisions { items.append(.decision(decision)) }
    }

    mutating func append(_ work: DueWork) {
        items.append(.due(work))
    }

    /// Begins a run; false when one is going on (it carries out what was queued, in order).
    mutating func beginRun() -> Bool {
        guard !isRunning else { return false }
        isRunning = true
        return true
    }

    mutating func endRun() {
        isRunning = false
    }

    /// The next item, in order.
    mutating func next() -> Item? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        return item
    }

    /// After an item: whether the rest waits for the loop's next turn.
    func yields(holdsWaiting: Bool) -> Bool {
        !isEmpty && inServerEvent && holdsWaiting
    }

    // MARK: - Steps and turns

    mutating func openStep() { openSteps += 1 }

    /// Closes a step; true for the outermost (its changes are journalled then).
    mutating func closeStep() -> Bool {
        openSteps -= 1
        return openSteps == 0
    }

    /// A server event begins; true when the turn's end must be queued (the first of the turn).
    mutating func beginServerEvent() -> Bool {
        serverEvents += 1
        guard !turnEndQueued else { return false }
        turnEndQueued = true
        return true
    }

    mutating func endServerEvent() {
        serverEvents -= 1
    }

    /// Whether a decision is handed to the bus side now; if not, it is kept for the turn's end.
    mutating func announcesNow(_ decision: PolicyDecision) -> Bool {
        guard inServerEvent else { return true }
        unannounced.append(decision)
        return false
    }

    /// Whether the Now Playing player is refreshed now; if not, at the turn's end.
    mutating func refreshesNowPlayingNow() -> Bool {
        guard inServerEvent else { return true }
        nowPlayingStale = true
        return false
    }

    /// Decisions announced later that must go before one announced now (order is kept).
    mutating func takeUnannounced() -> [PolicyDecision] {
        guard !unannounced.isEmpty else { return [] }
        defer { unannounced.removeAll() }
        return unannounced
    }

    /// The turn after server events: what it kept back to describe them.
    mutating func takeTurnEnd() -> (decisions: [PolicyDecision], nowPlayingStale: Bool) {
        turnEndQueued = false
        defer { nowPlayingStale = false }
        return (takeUnannounced(), nowPlayingStale)
    }
}
