import Testing

@testable import AudioSessionDaemon

/// The PulseAudio backend's audibility from peaks: news only on a change, the first peak
/// always news, nothing for a stream no longer watched.
@Suite struct HeardLevelsTests {
    @Test func onlyAChangeOfAudibilityIsNews() {
        var levels = HeardLevels()
        levels.watch(7, threshold: 0.001)
        let news = [0, 0.0005, 0.2, 0.3, 0.001].map { levels.heard($0, on: 7) }
        // The first peak is news, silent or not; at the threshold it is silence.
        #expect(news == [false, nil, true, nil, false])
    }

    @Test func aStreamNoLongerWatchedIsNotReportedAndStartsAfreshWhenWatchedAgain() {
        var levels = HeardLevels()
        levels.watch(3, threshold: 0.01)
        let first = levels.heard(0.5, on: 3)
        let unwatched = levels.unwatch(3)
        let again = levels.unwatch(3)
        let afterUnwatch = levels.heard(0.5, on: 3)
        let neverWatched = levels.heard(0.5, on: 4)
        levels.watch(3, threshold: 0.01)
        let watchedAgain = levels.heard(0.5, on: 3)
        #expect(first == true && unwatched && !again)
        #expect(afterUnwatch == nil && neverWatched == nil)
        #expect(watchedAgain == true, "watched again: its first peak is news again")
    }
}
