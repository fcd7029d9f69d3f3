import PipeWireGraph
import SessionPolicy

/// The native volume ramps a stream's converter is running, and what waits for each to end.
///
/// PipeWire's audioconvert (1.4, and still 1.5) takes no new ramp while one runs: the ramp keys
/// are refused and the new volume is overridden by the running ramp's remaining steps. So a
/// ramp asked for meanwhile (an unduck during a short notification's duck) waits, newest
/// wins, and starts once the running one has had its time; a stream with none waiting is
/// settled then instead.
///
/// Confined to the loop thread.
struct NativeRampsInFlight {
    private struct Entry {
        var whenDone: ScheduledWork
        /// When the converter is done with it (the loop's clock).
        var ends: Timestamp
        var waiting: WaitingRamp?
        /// The volume the ramp ends at.
        var target: Float
        /// We wrote other Props (a mute) while it ran: the converter then reports the volume
        /// it has reached mid-ramp, which is neither ours nor the user's.
        var reportsMidRamp = false
    }

    private var entries: [GlobalID: Entry] = [:]

    func isRamping(_ stream: GlobalID) -> Bool { entries[stream] != nil }

    /// A ramp to `target` was written; `whenDone` fires once it has run.
    mutating func started(_ stream: GlobalID, target: Float, ends: Timestamp, whenDone: ScheduledWork) {
        entries.removeValue(forKey: stream)?.whenDone.cancel()
        entries[stream] = Entry(whenDone: whenDone, ends: ends, target: target)
    }

    /// When each running ramp ends (the loop's clock).
    var ends: [GlobalID: Timestamp] { entries.mapValues(\.ends) }

    /// We wrote other Props of a ramping stream: its volume reports are the converter's until
    /// the ramp is done. Returns whether it is ramping.
    @discardableResult
    mutating func otherPropsWritten(_ stream: GlobalID) -> Bool {
        guard entries[stream] != nil else { return false }
        entries[stream]?.reportsMidRamp = true
        return true
    }

    /// Whether the stream's volume reports are mid-ramp values of its converter.
    func reportsMidRamp(_ stream: GlobalID) -> Bool { entries[stream]?.reportsMidRamp == true }

    /// Where a stream whose reports are mid-ramp values is going: its volume for anyone who
    /// would take it as the stream's own.
    func target(ifReportsMidRamp stream: GlobalID) -> Float? {
        entries[stream].flatMap { $0.reportsMidRamp ? $0.target : nil }
    }

    /// Keeps `ramp` for when the running one is done, replacing any kept before.
    mutating func wait(_ ramp: WaitingRamp, for stream: GlobalID) { entries[stream]?.waiting = ramp }

    /// Someone else set the stream's volume: theirs wins over a ramp of ours not yet started.
    mutating func dropWaiting(for stream: GlobalID) { entries[stream]?.waiting = nil }

    /// The running ramp is done: the ramp that waited for it, if any, and the volume it ended
    /// at when the stream's reports cannot say (``reportsMidRamp(_:)``).
    mutating func finished(_ stream: GlobalID) -> (waiting: WaitingRamp?, reachedIfUnreported: Float?) {
        guard let entry = entries.removeValue(forKey: stream) else { return (nil, nil) }
        return (entry.waiting, entry.reportsMidRamp ? entry.target : nil)
    }

    mutating func forget(_ stream: GlobalID) { entries.removeValue(forKey: stream)?.whenDone.cancel() }

    mutating func removeAll() {
        for entry in entries.values { entry.whenDone.cancel() }
        entries.removeAll()
    }
}

/// A ramp asked for while another ran: the volume it goes to, and its shape.
struct WaitingRamp: Equatable {
    var volume: Float
    var ramp: DuckingRamp
}
