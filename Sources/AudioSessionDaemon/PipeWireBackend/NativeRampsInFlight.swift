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
        var waiting: DuckingRamp?
    }

    private var entries: [GlobalID: Entry] = [:]

    func isRamping(_ stream: GlobalID) -> Bool { entries[stream] != nil }

    /// A ramp was written; `whenDone` fires once it has run.
    mutating func started(_ stream: GlobalID, whenDone: ScheduledWork) {
        entries.removeValue(forKey: stream)?.whenDone.cancel()
        entries[stream] = Entry(whenDone: whenDone)
    }

    /// Keeps `ramp` for when the running one is done, replacing any kept before.
    mutating func wait(_ ramp: DuckingRamp, for stream: GlobalID) { entries[stream]?.waiting = ramp }

    /// Someone else set the stream's volume: theirs wins over a ramp of ours not yet started.
    mutating func dropWaiting(for stream: GlobalID) { entries[stream]?.waiting = nil }

    /// The running ramp is done: the ramp that waited for it, if any.
    mutating func finished(_ stream: GlobalID) -> DuckingRamp? { entries.removeValue(forKey: stream)?.waiting }

    mutating func forget(_ stream: GlobalID) { entries.removeValue(forKey: stream)?.whenDone.cancel() }

    mutating func removeAll() {
        for entry in entries.values { entry.whenDone.cancel() }
        entries.removeAll()
    }
}
