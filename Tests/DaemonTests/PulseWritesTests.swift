@testable import AudioSessionDaemon
import PulseAudioServer
import SessionPolicy
import Testing

/// PulseAudio's reports of our own volume and mute writes are told from a user's change (whose
/// stream-restore record is theirs to keep) by the one borrowed-value rule: a volume by the
/// server's step it became, however many ramps came before; a mute by the last one we sent.
@Suite("PulseAudio: the volumes and mutes we wrote")
struct PulseWritesTests {
    @Test func aRecentWriteIsKnownAfterManyRampsAndReadBackAsWritten() {
        var volume = WrittenVolume.borrowed(from: [PulseVolume.norm], writing: WrittenVolume(linear: 0.99, as: 99))
        for ramp in 0..<10 {
            for step in 0..<75 { volume.write(WrittenVolume(linear: Float(step) / 75, as: UInt32(ramp * 1000 + step))) }
        }
        #expect(volume.write(reportedAs: WrittenVolume(reported: [9074]))?.linear == Float(74) / 75, "the last ramp's last step")
        #expect(volume.write(reportedAs: WrittenVolume(reported: [9000]))?.linear == 0, "the last ramp's first step, 75 writes ago")
        #expect(volume.write(reportedAs: WrittenVolume(reported: [5])) == nil, "long gone")
        #expect(volume.reported(WrittenVolume(reported: [9000])) == .ours)
        #expect(volume.reported(WrittenVolume(reported: [12345])) != .ours, "never written: the user's")
    }

    @Test func theLatestWriteOfAStepWins() {
        var volume = WrittenVolume.borrowed(from: [PulseVolume.norm], writing: WrittenVolume(linear: 0.5, as: 100))
        volume.write(WrittenVolume(linear: 0.5001, as: 100))
        #expect(volume.write(reportedAs: WrittenVolume(reported: [100, 80]))?.linear == 0.5001)
    }

    @Test func theUsersOwnVolumeReportedIsTheirs() {
        var volume = WrittenVolume.borrowed(from: [PulseVolume.norm], writing: WrittenVolume(linear: 0.3, as: 300))
        #expect(volume.reported(WrittenVolume(reported: [PulseVolume.norm])) != .ours)
    }

    @Test func aMuteOfTheUsersAfterOurMuteAndUnmuteIsTheirs() {
        var mute = BorrowedValue(users: false, ours: true, keepingEarlier: 0)
        #expect(mute.reported(true) == .ours)
        mute.write(false)
        #expect(mute.reported(false) == .ours)
        #expect(mute.reported(true) != .ours, "two values: an earlier write of ours cannot be told from the user's mute")
    }
}
