import Testing
@testable import SessionPolicy

/// Reference §1–3 as tables: every category × option, every mode × category.
@Suite struct CategoryTableTests {
    /// Reference §3, "Accepted by", written out independently of the implementation.
    static let acceptedBy: [String: Set<String>] = [
        "mixWithOthers": ["playAndRecord", "playback", "multiRoute"],
        "duckOthers": ["ambient", "playAndRecord", "playback", "multiRoute"],
        "allowBluetooth": ["playAndRecord", "record"],
        "defaultToSpeaker": ["playAndRecord"],
        "interruptSpokenAudioAndMixWithOthers": ["playAndRecord", "playback", "multiRoute"],
        "allowBluetoothA2DP": ["playAndRecord"],
        "allowAirPlay": ["playAndRecord"],
        "overrideMutedMicrophoneInterruption": ["playAndRecord", "multiRoute"],
    ]

    static let pairs: [(String, String)] = Category.allCases.flatMap { category in
        CategoryOptions.named.map { (category.wireName, $0.name) }
    }

    @Test(arguments: pairs.indices)
    func everyCategoryAndOption(_ index: Int) throws {
        let (categoryName, optionName) = Self.pairs[index]
        let category = try #require(Category(wireName: categoryName))
        let option = try #require(CategoryOptions(wireName: optionName))
        let accepted = Self.acceptedBy[optionName]!.contains(categoryName)
        if accepted {
            let configuration = try SessionConfiguration(category: category, options: option)
            #expect(configuration.options == option)
        } else {
            #expect(throws: AudioSessionError.badParam) {
                try SessionConfiguration(category: category, options: option)
            }
        }
    }

    @Test func undefinedBitsAreBadParam() {
        #expect(throws: AudioSessionError.badParam) {
            try SessionConfiguration(category: .playAndRecord, options: CategoryOptions(rawValue: 0x100))
        }
        #expect(throws: AudioSessionError.badParam) {
            try SessionConfiguration(categoryName: "playback", optionNames: ["allowBluetoothHFP"])
        }
        #expect(throws: AudioSessionError.badParam) { try SessionConfiguration(categoryName: "loud") }
    }

    /// Reference §2, "Compatible categories".
    static let compatible: [String: Set<String>] = [
        "default": Set(Category.allCases.map(\.wireName)),
        "voiceChat": ["playAndRecord"],
        "gameChat": ["playAndRecord"],
        "videoRecording": ["playAndRecord", "record"],
        "measurement": ["playAndRecord", "record", "playback"],
        "moviePlayback": ["playback"],
        "videoChat": ["playAndRecord"],
        "spokenAudio": ["playback"],
        "voicePrompt": ["playback"],
    ]

    static let modePairs: [(String, String)] = Mode.allCases.flatMap { mode in
        Category.allCases.map { (mode.wireName, $0.wireName) }
    }

    @Test(arguments: modePairs.indices)
    func everyModeAndCategory(_ index: Int) throws {
        let (modeName, categoryName) = Self.modePairs[index]
        let configuration = try SessionConfiguration(categoryName: categoryName, modeName: modeName)
        // Never an error; an incompatible mode behaves as default.
        #expect(configuration.mode.wireName == modeName)
        let compatible = Self.compatible[modeName]!.contains(categoryName)
        #expect(configuration.effectiveMode == (compatible ? configuration.mode : .default))
    }

    @Test func impliedOptions() throws {
        #expect(try SessionConfiguration(category: .playback, options: .duckOthers).effectiveOptions.contains(.mixWithOthers))
        #expect(try SessionConfiguration(category: .playback, options: .duckOthers).isMixable)
        #expect(try SessionConfiguration(category: .ambient, options: .duckOthers).isMixable)
        let spoken = try SessionConfiguration(category: .playback, options: .interruptSpokenAudioAndMixWithOthers)
        #expect(spoken.isMixable)
        let voice = try SessionConfiguration(category: .playAndRecord, mode: .voiceChat)
        #expect(voice.effectiveOptions.contains(.allowBluetooth))
        #expect(!voice.effectiveOptions.contains(.defaultToSpeaker))
        let video = try SessionConfiguration(category: .playAndRecord, mode: .videoChat)
        #expect(video.effectiveOptions.isSuperset(of: [.allowBluetooth, .defaultToSpeaker]))
        // Incompatible mode: default behaviour, so nothing implied.
        let wrong = try SessionConfiguration(category: .playback, mode: .voiceChat)
        #expect(wrong.effectiveOptions.isEmpty)
        #expect(!(try SessionConfiguration(category: .playback)).isMixable)
        #expect(!(try SessionConfiguration(category: .soloAmbient)).isMixable)
        #expect(try SessionConfiguration(category: .ambient).isMixable)
    }

    @Test func categoryBehaviourTable() {
        // §1: silenced by silent mode, I/O.
        for category in Category.allCases {
            #expect(category.isSilencedBySilentModeByDefault == [.ambient, .soloAmbient].contains(category))
        }
        #expect(Category.record.hasInput && !Category.record.hasOutput)
        #expect(Category.playAndRecord.hasInput && Category.playAndRecord.hasOutput)
        #expect(!Category.audioProcessing.hasInput && !Category.audioProcessing.hasOutput)
        #expect(Category.audioProcessing.isDeprecated)
    }

    @Test func engineRejectsBadOptionsAndChangesNothing() {
        var harness = EngineHarness()
        let session = harness.explicit(1, .playback, options: .mixWithOthers)
        let decisions = harness.send(.setCategory(session, .soloAmbient, mode: .default, options: .mixWithOthers))
        #expect(decisions.failure(session) == .badParam)
        #expect(harness.engine.snapshot(of: session)?.category == .playback)
        #expect(harness.engine.snapshot(of: session)?.options == .mixWithOthers)
    }

    @Test func optionsResetOnCategoryChange() {
        var harness = EngineHarness()
        let session = harness.explicit(1, .playback, options: [.mixWithOthers, .duckOthers])
        harness.send(.setCategory(session, .playAndRecord, mode: .default, options: []))
        #expect(harness.engine.snapshot(of: session)?.options == [])
    }

    @Test func unknownSessionIsExpired() {
        var harness = EngineHarness()
        let ghost = SessionID(99)
        #expect(harness.activate(ghost).failure(ghost) == .expiredSession)
        let session = harness.explicit(1, .playback)
        harness.send(.sessionRemoved(session))
        #expect(harness.activate(session).failure(session) == .expiredSession)
    }
}
