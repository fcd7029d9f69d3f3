import Testing
@testable import SessionPolicy

/// `inputGain` / `setInputGain`: the input device's volume, reported to explicit recorders; a
/// session's gain is applied to its input device only while it is active, given back after;
/// when several active sessions record from one device, the non-mixable and then the most
/// recent one wins.
@Suite struct InputGainTests {
    static let speaker = Port(uid: "speaker", nodeID: 1, type: .builtInSpeaker, direction: .output)
    static let mic = Port(uid: "mic", nodeID: 2, type: .builtInMic, direction: .input)
    static let usbMic = Port(uid: "usb-mic", nodeID: 3, type: .usbAudio, direction: .input)

    private func harness(_ configuration: PolicyConfiguration = .desktop) -> EngineHarness {
        var h = EngineHarness(configuration)
        h.send(.devicesEnumerated([Self.speaker, Self.mic, Self.usbMic], defaultOutput: "speaker", defaultInput: "mic"))
        h.send(.inputVolumeChanged(Self.mic.device, 0.8))
        return h
    }

    @Test func theInputDevicesVolumeIsReportedToExplicitRecorders() {
        var h = harness()
        let memo = h.explicit(1, .record)
        let player = h.explicit(2, .playback)
        #expect(h.engine.inputGain(for: memo) == 0.8)
        #expect(h.engine.isInputGainSettable(for: memo))
        #expect(!h.engine.isInputGainSettable(for: player), "no input")
        #expect(h.send(.inputVolumeChanged(Self.mic.device, 0.6)) == [.inputGainChanged(memo, 0.6)])
        #expect(h.send(.inputVolumeChanged(Self.mic.device, 0.6)).isEmpty, "no change, nothing said")
        #expect(h.send(.inputVolumeChanged(Self.usbMic.device, 0.3)).isEmpty, "not its device")
        h.send(.inputVolumeChanged(Self.mic.device, nil))
        #expect(!h.engine.isInputGainSettable(for: memo), "no volume control")
        #expect(h.engine.inputGain(for: memo) == 1)
    }

    @Test func aGainIsAppliedWhileTheSessionIsActiveAndGivenBackAfter() {
        var h = harness()
        let memo = h.explicit(1, .record)
        #expect(h.send(.setInputGain(memo, 0.5)).isEmpty, "kept until it is active")
        let activation = h.activate(memo)
        #expect(activation.contains(.applyInputGain(Self.mic.device, 0.5)))
        #expect(h.send(.inputVolumeChanged(Self.mic.device, 0.5)) == [.inputGainChanged(memo, 0.5)])
        #expect(h.send(.setInputGain(memo, 0.25)) == [.applyInputGain(Self.mic.device, 0.25)])
        #expect(h.deactivate(memo).contains(.applyInputGain(Self.mic.device, nil)))
        #expect(h.activate(memo).contains(.applyInputGain(Self.mic.device, 0.25)), "its wish is kept")
        #expect(h.send(.sessionRemoved(memo)).contains(.applyInputGain(Self.mic.device, nil)))
    }

    /// Strict, where a call interrupts a recorder (the desktop spares it).
    @Test func anInterruptedSessionsGainIsGivenBack() {
        var h = harness(.strict)
        let memo = h.explicit(1, .record)
        h.send(.setInputGain(memo, 0.5))
        h.activate(memo)
        let call = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        let takeover = h.activate(call)
        #expect(takeover.began(memo))
        #expect(takeover.contains(.applyInputGain(Self.mic.device, nil)), "the call records at its user's volume")
    }

    @Test func theNonMixableThenTheMostRecentSessionWins() {
        var h = harness()
        let older = h.explicit(1, .playAndRecord, options: .mixWithOthers)
        let memo = h.explicit(2, .record)
        let newer = h.explicit(3, .playAndRecord, options: .mixWithOthers)
        h.send(.setInputGain(older, 0.3))
        h.send(.setInputGain(memo, 0.6))
        h.send(.setInputGain(newer, 0.9))
        #expect(h.activate(older).contains(.applyInputGain(Self.mic.device, 0.3)))
        #expect(h.activate(memo).contains(.applyInputGain(Self.mic.device, 0.6)), "non-mixable")
        #expect(!h.activate(newer).contains { if case .applyInputGain = $0 { true } else { false } }, "mixes with the memo")
        #expect(h.deactivate(memo).contains(.applyInputGain(Self.mic.device, 0.9)), "then the most recent")
    }

    @Test func theGainFollowsTheRouteToAnotherMicrophone() {
        var h = harness()
        h.send(.inputVolumeChanged(Self.usbMic.device, 0.9))
        let memo = h.explicit(1, .record)
        h.send(.setInputGain(memo, 0.5))
        h.activate(memo)
        let moved = h.send(.setPreferredInput(memo, portUID: "usb-mic"))
        #expect(moved.contains(.applyInputGain(Self.mic.device, nil)))
        #expect(moved.contains(.applyInputGain(Self.usbMic.device, 0.5)))
    }

    @Test func requestsThatCannotBeCarriedOutFail() {
        var h = harness()
        let player = h.explicit(1, .playback)
        #expect(h.send(.setInputGain(player, 0.5)) == [.failed(player, .incompatibleCategory)])
        let memo = h.explicit(2, .record)
        #expect(h.send(.setInputGain(memo, 1.5)) == [.failed(memo, .badParam)])
        #expect(h.send(.setInputGain(memo, .nan)) == [.failed(memo, .badParam)])
        h.send(.inputVolumeChanged(Self.mic.device, nil))
        #expect(h.send(.setInputGain(memo, 0.5)) == [.failed(memo, .resourceNotAvailable)], "no volume control")
    }

    @Test func nothingIsAppliedAfterTheGraphIsLost() {
        var h = harness()
        let memo = h.explicit(1, .record)
        h.send(.setInputGain(memo, 0.5))
        h.activate(memo)
        let lost = h.send(.graphLost)
        #expect(!lost.contains { if case .applyInputGain = $0 { true } else { false } }, "the devices are gone with it")
    }
}
