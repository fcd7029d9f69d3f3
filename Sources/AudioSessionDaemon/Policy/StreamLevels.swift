import SessionPolicy

/// The streams whose level the daemon watches, and what was last heard of each.
///
/// Only streams of sessions that duck others are watched (``StreamQuietness``): a speech
/// synthesizer keeps its stream running long after the words, and a helper stream may run
/// playing only zeros. Such a stream counts as running once it is heard, and stops counting
/// when it has been silent for its grace.
struct StreamLevels {
    /// Watched streams; nil until the first report.
    private var heard: [StreamID: Bool?] = [:]
    /// Watched streams whose meter's patience ran out while they did not run (a meter hears
    /// only a running stream): their patience begins again when they run.
    private var patienceSpentIdle: Set<StreamID> = []

    func isWatched(_ id: StreamID) -> Bool { heard[id] != nil }

    /// Watched, and nothing reported yet.
    func awaitsReport(_ id: StreamID) -> Bool { heard[id] == .some(nil) }

    /// Whether a running stream sounds: an unwatched one is taken at its word (its node
    /// runs); a watched one once it was heard, and until it falls silent.
    func sounds(_ id: StreamID) -> Bool {
        guard let level = heard[id] else { return true }
        return level == true
    }

    mutating func watch(_ id: StreamID) { heard[id] = .some(nil) }

    /// Stops watching; true when it was watched.
    @discardableResult
    mutating func unwatch(_ id: StreamID) -> Bool {
        patienceSpentIdle.remove(id)
        return heard.removeValue(forKey: id) != nil
    }

    mutating func spentPatienceIdle(_ id: StreamID) {
        if awaitsReport(id) { patienceSpentIdle.insert(id) }
    }

    /// Whether its patience was spent while it idled and it still awaits a report; forgets it.
    mutating func takePatienceSpentIdle(_ id: StreamID) -> Bool {
        patienceSpentIdle.remove(id) != nil && awaitsReport(id)
    }

    /// A report from the meter; ignored for a stream no longer watched.
    mutating func heard(_ id: StreamID, audible: Bool) {
        guard heard[id] != nil else { return }
        heard[id] = .some(audible)
    }

    mutating func removeAll() {
        heard.removeAll()
        patienceSpentIdle.removeAll()
    }
}
