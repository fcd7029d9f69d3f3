import Testing
@testable import SessionPolicy

/// Data sources: a session's port lists its card's routes; a session's choice switches the
/// card's route only while it is active there, and the card gets its route back after; the
/// non-mixable and then the most recent session wins; a choice that cannot be made fails.
@Suite struct DataSourceTests {
    static let internalMic = DataSource(id: 2, name: "Internal Microphone")
    static let headsetMic = DataSource(id: 3, name: "Headset Microphone")
    static let speaker = Port(uid: "speaker", nodeID: 1, type: .builtInSpeaker, direction: .output)
    static let mic = Port(uid: "card-input:analog-input-internal-mic", nodeID: 5, type: .builtInMic, direction: .input)
    static let plugged = DeviceDataSources(sources: [internalMic, headsetMic], selected: 2)
    static let usbMic = Port(uid: "usb-mic", nodeID: 6, type: .usbAudio, direction: .input)

    private func harness() -> EngineHarness {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.usbMic, Self.mic], defaultOutput: "speaker", defaultInput: Self.mic.uid))
        h.send(.dataSourcesChanged(Self.mic.device, Self.plugged))
        return h
    }

    @Test func theSessionsPortListsItsCardsRoutes() {
        var h = harness()
        let memo = h.explicit(1, .record)
        let player = h.explicit(2, .playback)
        #expect(h.engine.dataSources(for: memo, .input) == [Self.internalMic, Self.headsetMic])
        #expect(h.engine.selectedDataSource(for: memo, .input) == Self.internalMic)
        #expect(h.engine.preferredDataSource(for: memo, .input) == nil)
        #expect(h.engine.dataSources(for: player, .input).isEmpty)
        #expect(h.engine.dataSources(for: player, .output).isEmpty, "the speaker has no routes")
    }

    @Test func aChoiceSwitchesTheCardWhileActiveAndTheCardGetsItsRouteBack() {
        var h = harness()
        let memo = h.explicit(1, .record)
        #expect(h.send(.setDataSource(memo, .input, 3)).isEmpty, "kept until it is active")
        #expect(h.engine.preferredDataSource(for: memo, .input) == 3)
        #expect(h.activate(memo).contains(.selectDataSource(Self.mic.device, 3)))
        h.send(.dataSourcesChanged(Self.mic.device, DeviceDataSources(sources: [Self.internalMic, Self.headsetMic], selected: 3)))
        #expect(h.engine.selectedDataSource(for: memo, .input) == Self.headsetMic)
        #expect(h.deactivate(memo).contains(.selectDataSource(Self.mic.device, nil)))
        #expect(h.activate(memo).contains(.selectDataSource(Self.mic.device, 3)), "the wish is kept")
        #expect(h.send(.setDataSource(memo, .input, nil)) == [.selectDataSource(Self.mic.device, nil)])
    }

    @Test func aRouteThatGoesIsNoLongerSelectedAndTheChoiceWaitsForIt() {
        var h = harness()
        let memo = h.explicit(1, .record)
        h.send(.setDataSource(memo, .input, 3))
        h.activate(memo)
        let unplugged = DeviceDataSources(sources: [Self.internalMic], selected: 2)
        #expect(h.send(.dataSourcesChanged(Self.mic.device, unplugged)).contains(.selectDataSource(Self.mic.device, nil)), "the headset is gone")
        #expect(h.send(.dataSourcesChanged(Self.mic.device, Self.plugged)).contains(.selectDataSource(Self.mic.device, 3)), "and back")
    }

    @Test func theNonMixableThenTheMostRecentSessionWins() {
        var h = harness()
        let older = h.explicit(1, .playAndRecord, options: .mixWithOthers)
        let memo = h.explicit(2, .record)
        let newer = h.explicit(3, .playAndRecord, options: .mixWithOthers)
        h.send(.setDataSource(older, .input, 2))
        h.send(.setDataSource(memo, .input, 3))
        h.send(.setDataSource(newer, .input, 2))
        #expect(h.activate(older).contains(.selectDataSource(Self.mic.device, 2)))
        #expect(h.activate(memo).contains(.selectDataSource(Self.mic.device, 3)), "non-mixable")
        #expect(!h.activate(newer).contains { if case .selectDataSource = $0 { true } else { false } })
        #expect(h.deactivate(memo).contains(.selectDataSource(Self.mic.device, 2)), "then the most recent")
    }

    @Test func choicesThatCannotBeMadeFail() {
        var h = harness()
        let player = h.explicit(1, .playback)
        #expect(h.send(.setDataSource(player, .input, 2)) == [.failed(player, .incompatibleCategory)])
        let memo = h.explicit(2, .record)
        #expect(h.send(.setDataSource(memo, .input, 9)) == [.failed(memo, .badParam)], "not one of its port's")
        h.send(.setPreferredInput(memo, portUID: "usb-mic"))
        #expect(h.send(.setDataSource(memo, .input, 2)) == [.failed(memo, .badParam)], "the USB mic has none")
    }
}
