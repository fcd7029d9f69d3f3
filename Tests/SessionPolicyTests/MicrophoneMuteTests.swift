import Testing
@testable import SessionPolicy

/// `builtInMicMuted`: muting the microphone an explicit session records from interrupts it;
/// unmuting ends the interruption with `shouldResume`; `overrideMutedMicrophoneInterruption`
/// keeps it active; implicit recorders and playback-only sessions are left alone.
@Suite struct MicrophoneMuteTests {
    static let speaker = Port(uid: "speaker", nodeID: 1, type: .builtInSpeaker, direction: .output)
    static let mic = Port(uid: "mic", nodeID: 2, type: .builtInMic, direction: .input)
    static let usbMic = Port(uid: "usb-mic", nodeID: 3, type: .usbAudio, direction: .input)

    private func harness(_ configuration: PolicyConfiguration = .desktop) -> EngineHarness {
        var h = EngineHarness(configuration)
        h.send(.devicesEnumerated([Self.speaker, Self.mic], defaultOutput: "speaker", defaultInput: "mic"))
        return h
    }

    @Test func mutingTheMicrophoneInterruptsTheRecorderAndUnmutingResumesIt() {
        var h = harness()
        let memo = h.explicit(1, .record)
        let music = h.explicit(2, .playback, options: .mixWithOthers)
        let recorder = h.implicit(3, .playAndRecord, options: .mixWithOthers)
        h.activate(memo)
        h.activate(music)
        _ = h.play(recorder, .capture)
        let mute = h.send(.inputMuted(Self.mic.device, true))
        #expect(mute.contains(.interruptionBegan(memo, reason: .builtInMicMuted, method: .sessionAPI)))
        #expect(h.activity(memo) == .interrupted, "waiting for its microphone")
        #expect(h.engine.snapshot(of: memo)?.isHeldByMutedInput == true)
        #expect(!mute.began(music), "it plays only")
        #expect(!mute.began(recorder), "implicit sessions did not ask for iOS's rules")

        let unmute = h.send(.inputMuted(Self.mic.device, false))
        #expect(unmute.contains(.interruptionEnded(memo, options: .shouldResume, method: .sessionAPI)))
        #expect(h.activity(memo) == .inactive)
        #expect(h.activate(memo).contains(.activated(memo)))
        #expect(h.send(.inputMuted(Self.mic.device, false)).isEmpty, "nothing twice")
    }

    @Test func theOverrideOptionKeepsTheCallActive() {
        var h = harness()
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, options: .overrideMutedMicrophoneInterruption, class: .communication)
        h.activate(call)
        #expect(!h.send(.inputMuted(Self.mic.device, true)).began(call))
        #expect(h.activity(call) == .active)
    }

    @Test func activatingWhileMutedIsInterruptedAgainAndDeactivatingEndsIt() {
        var h = harness()
        h.send(.inputMuted(Self.mic.device, true))
        let memo = h.explicit(1, .record)
        let activation = h.activate(memo)
        #expect(activation.contains(.activated(memo)))
        #expect(activation.contains(.interruptionBegan(memo, reason: .builtInMicMuted, method: .sessionAPI)))
        h.deactivate(memo)
        #expect(!h.send(.inputMuted(Self.mic.device, false)).contains { $0.session == memo }, "its app gave up: no ended")
    }

    /// Strict, where a call interrupts a recorder (the desktop spares it).
    @Test func aCallEndingWhileTheMicrophoneIsMutedDoesNotEndTheRecordersWait() {
        var h = harness(.strict)
        let memo = h.explicit(1, .record)
        h.activate(memo)
        let call = h.explicit(2, .playAndRecord, mode: .voiceChat, options: .overrideMutedMicrophoneInterruption, class: .communication)
        #expect(h.activate(call).began(memo))
        #expect(!h.send(.inputMuted(Self.mic.device, true)).began(memo), "one began is enough")
        #expect(h.deactivate(call, notifyOthers: true).ended(memo) == nil, "its microphone is still muted")
        #expect(h.activity(memo) == .interrupted)
        #expect(h.send(.inputMuted(Self.mic.device, false)).ended(memo) == .shouldResume)
    }

    @Test func anUnmutedMicrophonePluggedInEndsTheInterruption() {
        var h = harness()
        let memo = h.explicit(1, .record)
        h.activate(memo)
        h.send(.inputMuted(Self.mic.device, true))
        let plug = h.send(.deviceAdded(Self.usbMic))
        #expect(plug.contains(.interruptionEnded(memo, options: .shouldResume, method: .sessionAPI)), "last in wins: it records from the USB mic")
    }
}
