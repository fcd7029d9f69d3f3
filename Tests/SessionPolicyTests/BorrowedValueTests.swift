import SessionPolicy
import Testing

/// The one rule of whose a setting is: before ours is reported, another value is the user's
/// latest (ours overwrites it, and it is what is given back); after, it is the user's change,
/// and it stays.
@Suite("A borrowed setting: ours or the user's")
struct BorrowedValueTests {
    @Test func aValueThatAlreadyIsOursNeedsNoReport() {
        let route = BorrowedValue(users: 2, ours: 2)
        #expect(route.isOursReported)
        #expect(route.isGivenBack)
    }

    @Test func ourWriteComingBackIsOursAndSettlesIt() {
        var route = BorrowedValue(users: 1, ours: 2)
        #expect(!route.isOursReported)
        #expect(route.reported(2) == .ours)
        #expect(route.isOursReported)
        #expect(route.mayGiveBack(over: 2))
    }

    @Test func aValueReportedBeforeOursLandsIsTheUsersLatestAndWhatIsGivenBack() {
        var route = BorrowedValue(users: 1, ours: 2)
        // The user picked 3 just before our write reached the server: ours overwrites it.
        #expect(route.reported(3) == .usersBeforeOurs)
        #expect(route.users == 3)
        #expect(route.mayGiveBack(over: 3), "ours is on its way: it would land after a give-back skipped here, and stay")
        #expect(route.reported(2) == .ours)
        #expect(route.users == 3)
    }

    @Test func aValueReportedAfterOursIsTheUsersChangeAndNothingIsGivenBackOverIt() {
        var route = BorrowedValue(users: 1, ours: 2)
        _ = route.reported(2)
        #expect(route.reported(3) == .usersChange)
        #expect(route.users == 1, "nothing of the user's later choice is taken for theirs to give back")
        #expect(!route.mayGiveBack(over: 3))
    }

    @Test func theUsersOwnValueAfterOursIsTheirsAgain() {
        var volume = BorrowedValue<Float>(users: 0.8, ours: 0.5)
        #expect(volume.reported(0.8) == .usersStill, "before ours lands: nothing new")
        #expect(volume.reported(0.5) == .ours)
        #expect(volume.reported(0.8) == .usersAgain, "the stream applied its own volume over ours")
        #expect(volume.mayGiveBack(over: 0.8))
    }

    @Test func anEarlierWriteReportedLateIsStillOurs() {
        var volume = BorrowedValue<Float>(users: 1, ours: 0.9)
        for step in stride(from: Float(0.8), through: 0.3, by: -0.1) { volume.write(step) }
        #expect(volume.reported(0.5) == .ours)
        #expect(!volume.isOursReported, "only the last write settles it")
        #expect(volume.reported(volume.ours) == .ours)
        #expect(volume.reported(0.9) == .ours, "a late report of the first step, after the last")
        #expect(volume.users == 1)
    }

    @Test func onlyTheLatestWritesAreRemembered() {
        var volume = BorrowedValue<Int>(users: 0, ours: 1)
        for value in 2...(BorrowedValue<Int>.earlierLimit + 2) { volume.write(value) }
        #expect(volume.reported(1) == .usersBeforeOurs, "long gone: taken for the user's")
        #expect(volume.reported(3) == .ours)
    }

    @Test func givingBackIsWritingTheUsersValueAndItIsDoneOnceReported() {
        var gain = BorrowedValue(users: 0.4, ours: 0.9, matching: { abs($0 - $1) < 0.005 })
        _ = gain.reported(0.9)
        gain.write(gain.users)
        #expect(!gain.isGivenBack, "sent, not reported yet")
        #expect(gain.reported(0.9) == .ours, "our gain, reported late")
        #expect(gain.reported(0.4012) == .ours, "the give-back, as the control rounds it")
        #expect(gain.isGivenBack)
    }

    @Test func aWishAgainBeforeTheGiveBackIsReportedKeepsTheUsersValue() {
        var gain = BorrowedValue(users: 0.4, ours: 0.9, matching: { abs($0 - $1) < 0.005 })
        _ = gain.reported(0.9)
        gain.write(gain.users)  // the session deactivated
        gain.write(0.9)  // and activated again, before the give-back came back
        #expect(gain.reported(0.4) == .ours, "our give-back coming back is no user's choice")
        #expect(gain.reported(0.9) == .ours)
        #expect(gain.users == 0.4)
    }

    @Test func aTwoValuedSettingKeepsNoEarlierWrites() {
        var mute = BorrowedValue(users: false, ours: true, keepingEarlier: 0)
        mute.write(false)
        #expect(mute.reported(true) == .usersBeforeOurs, "with both values written, the user's mute would be ours forever")
        #expect(!mute.isOurs(true))
    }

    @Test func aReportIsReadBackAsTheWriteItCameFrom() {
        var volume = BorrowedValue<Float>(users: 1, ours: 0.51, matching: { abs($0 - $1) < 0.005 })
        volume.write(0.3)
        #expect(volume.write(reportedAs: 0.512) == 0.51, "an earlier write, as the server rounded it")
        #expect(volume.write(reportedAs: 0.3) == 0.3)
        #expect(volume.write(reportedAs: 1) == nil, "the user's")
    }
}
