import Testing
@testable import SessionPolicy

/// Preferred channel counts: AVAudioSession's refusals (not active, wrong direction, more than
/// the route's devices take), kept and reported, never claimed as applied.
@Suite struct PreferredChannelsTests {
    static let speaker = Port(uid: "speaker", nodeID: 1, type: .builtInSpeaker, direction: .output, channels: 2)
    static let mic = Port(uid: "mic", nodeID: 2, type: .builtInMic, direction: .input, channels: 1)

    @Test func refusalsThenAPreferenceKept() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.mic], defaultOutput: "speaker", defaultInput: "mic"))
        let player = h.explicit(1, .playback)
        #expect(h.send(.setPreferredChannels(player, .output, 1)).failure(player) == .sessionNotActive)
        h.activate(player)
        #expect(h.send(.setPreferredChannels(player, .input, 1)).failure(player) == .incompatibleCategory)
        #expect(h.send(.setPreferredChannels(player, .output, 3)).failure(player) == .badParam, "the speaker has two")
        #expect(h.send(.setPreferredChannels(player, .output, 0)).failure(player) == .badParam)
        #expect(h.send(.setPreferredChannels(player, .output, 1)).failure(player) == nil)
        #expect(h.engine.snapshot(of: player)?.preferredOutputChannels == 1)
        #expect(h.engine.snapshot(of: player)?.route.outputs.first?.channels == 2, "the device's count is unchanged")
        h.send(.setPreferredChannels(player, .output, nil))
        #expect(h.engine.snapshot(of: player)?.preferredOutputChannels == nil)
    }
}
