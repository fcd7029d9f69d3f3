/// Whether each watched sink input is audible, from its meter's peaks: a peak above the
/// stream's threshold is audible, one at or below it is not, and only a change is news (the
/// coordinator hears `streamAudible` on changes, as from PipeWire's meters). Decides nothing
/// about what audibility means; the threshold is the policy's.
struct HeardLevels {
    private var thresholds: [UInt32: Float] = [:]
    private var audible: [UInt32: Bool] = [:]

    func isWatched(_ sinkInput: UInt32) -> Bool { thresholds[sinkInput] != nil }

    mutating func watch(_ sinkInput: UInt32, threshold: Float) {
        thresholds[sinkInput] = threshold
    }

    /// Stops watching; true when it was watched.
    mutating func unwatch(_ sinkInput: UInt32) -> Bool {
        audible[sinkInput] = nil
        return thresholds.removeValue(forKey: sinkInput) != nil
    }

    /// A peak heard on a watched input: its audibility when that changed (the first peak is
    /// always news), else nil.
    mutating func heard(_ peak: Float, on sinkInput: UInt32) -> Bool? {
        guard let threshold = thresholds[sinkInput] else { return nil }
        let now = peak > threshold
        guard audible[sinkInput] != now else { return nil }
        audible[sinkInput] = now
        return now
    }

    mutating func removeAll() {
        thresholds.removeAll()
        audible.removeAll()
    }
}
