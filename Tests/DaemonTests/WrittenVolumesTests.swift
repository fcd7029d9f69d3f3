@testable import AudioSessionDaemon
import Testing

/// Our own volume writes are told from a user's by the server's step each became, however
/// many ramps came before (a forgotten write read back would look like the user's).
@Suite("PulseAudio: volumes we wrote")
struct WrittenVolumesTests {
    @Test func aRecentWriteIsKnownAfterManyRamps() {
        var written = WrittenVolumes()
        for ramp in 0..<10 {
            for step in 0..<75 { written.wrote(Float(step) / 75, as: UInt32(ramp * 1000 + step)) }
        }
        #expect(written.volume(at: 9074) == Float(74) / 75, "the last ramp's last step")
        #expect(written.volume(at: 9000) == 0, "the last ramp's first step, 75 writes ago")
        #expect(written.volume(at: 5) == nil, "long gone")
        #expect(written.volume(at: 12345) == nil, "never written: the user's")
    }

    @Test func theLatestWriteOfAStepWins() {
        var written = WrittenVolumes()
        written.wrote(0.5, as: 100)
        written.wrote(0.5001, as: 100)
        #expect(written.volume(at: 100) == 0.5001)
    }
}
