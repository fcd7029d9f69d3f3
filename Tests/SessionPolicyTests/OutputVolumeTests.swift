import Testing
@testable import SessionPolicy

/// `outputVolume`: the user's volume of the device a session plays on, told to the explicit
/// sessions on that device only, and following the session's route.
@Suite struct OutputVolumeTests {
    static let speaker = Port(uid: "speaker", nodeID: 1, type: .builtInSpeaker, direction: .output)
    static let headphones = Port(uid: "headphones", nodeID: 2, type: .headphones, direction: .output)

    @Test func theSessionsOutputDeviceVolumeIsReportedAndFollowsTheRoute() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.headphones], defaultOutput: "headphones", defaultInput: nil))
        let player = h.explicit(1, .playback)
        let memo = h.explicit(2, .record)
        let game = h.implicit(3, .ambient)
        #expect(h.engine.outputVolume(for: player) == 1, "nothing reported yet")
        let change = h.send(.outputVolumeChanged(Self.headphones.device, 0.5))
        #expect(change == [.outputVolumeChanged(player, 0.5)], "only explicit sessions playing there")
        #expect(h.engine.outputVolume(for: memo) == 0, "no output")
        _ = game
        #expect(h.send(.outputVolumeChanged(Self.speaker.device, 0.8)).isEmpty, "not its device")
        #expect(h.send(.outputVolumeChanged(Self.headphones.device, 0.5)).isEmpty, "no change, nothing said")
        h.send(.deviceRemoved(uid: "headphones"))
        #expect(h.engine.outputVolume(for: player) == 0.8, "now on the speaker")
        #expect(h.send(.outputVolumeChanged(Self.speaker.device, 1.7)) == [.outputVolumeChanged(player, 1)], "clamped")
    }
}
