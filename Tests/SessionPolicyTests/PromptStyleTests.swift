import Testing
@testable import SessionPolicy

/// `promptStyle` (reference §10): a navigation app prompts normally, briefly during a call,
/// and not at all while something records.
@Suite struct PromptStyleTests {
    @Test func normalThenShortDuringACallThenNoneWhileSomethingRecords() {
        var h = EngineHarness()
        let navigation = h.explicit(1, .playback, mode: .voicePrompt, options: [.duckOthers, .interruptSpokenAudioAndMixWithOthers], class: .navigation)
        #expect(h.engine.promptStyle(for: navigation) == .normal)
        let call = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        h.activate(call)
        #expect(h.engine.promptStyle(for: navigation) == .short, "a call: a beep, not a sentence")
        #expect(h.engine.promptStyle(for: call) == .normal, "its own state does not count")
        h.deactivate(call)
        let memo = h.explicit(3, .record)
        h.activate(memo)
        #expect(h.engine.promptStyle(for: navigation) == .none, "a prompt would be in the recording")
        h.deactivate(memo)
        #expect(h.engine.promptStyle(for: navigation) == .normal)
    }

    @Test func anImplicitRecorderCountsOnlyWhileItCaptures() {
        var h = EngineHarness()
        let navigation = h.explicit(1, .playback, mode: .voicePrompt)
        let recorder = h.implicit(2, .playAndRecord, options: .mixWithOthers)
        _ = h.play(recorder)
        #expect(h.engine.promptStyle(for: navigation) == .normal, "it only plays")
        _ = h.play(recorder, .capture)
        #expect(h.engine.promptStyle(for: navigation) == .none)
    }
}
