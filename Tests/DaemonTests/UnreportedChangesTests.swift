@testable import AudioSessionDaemon
import SessionPolicy
import Testing

/// What the PulseAudio backend's exit waits for before it writes the stream-restore records
/// back: the server's report of the last value we wrote, not of any earlier one.
@Suite("PulseAudio changes not reported yet")
struct UnreportedChangesTests {
    let music = StreamID(.playback, 3)
    let full: [UInt32] = [65536, 65536]
    let ducked: [UInt32] = [19661, 19661]
    let step: [UInt32] = [40000, 40000]

    /// A ramp's step reported after the exit's own write went out does not count for it.
    @Test func aReportOfAnEarlierWriteLeavesTheLastOneAwaited() {
        var changes = UnreportedChanges()
        changes.write(volume: step, of: music, current: full)
        changes.write(volume: ducked, of: music, current: full)
        changes.write(volume: full, of: music, current: full)  // the exit's undo, earlier ones on their way
        #expect(!changes.isEmpty, "our mirror shows full, but the server will still change it")
        changes.reported(music, volume: step, muted: false)
        changes.reported(music, volume: ducked, muted: false)
        #expect(!changes.isEmpty)
        changes.reported(music, volume: full, muted: false)
        #expect(changes.isEmpty)
    }

    /// A write of what the stream has, with nothing on its way, changes nothing on the server:
    /// no report will come, and none is awaited.
    @Test func aWriteOfWhatTheStreamHasIsNotAwaited() {
        var changes = UnreportedChanges()
        changes.write(volume: full, of: music, current: full)
        changes.write(muted: false, of: music, current: false)
        #expect(changes.isEmpty)
    }

    @Test func mutesMovesAndGoneStreams() {
        var changes = UnreportedChanges()
        changes.write(muted: true, of: music, current: false)
        changes.reported(music, volume: full, muted: false)
        #expect(changes.count == 1, "still unmuted: the mute is on its way")
        changes.reported(music, volume: full, muted: true)
        #expect(changes.isEmpty)

        changes.moved(music)
        #expect(changes.count == 1)
        changes.reported(music, volume: full, muted: true)
        #expect(changes.isEmpty, "a move is reported with the stream's next change")

        changes.write(volume: ducked, of: music, current: full)
        changes.forget(music)
        #expect(changes.isEmpty, "a stream that is gone reports nothing")
    }
}
