import Testing
@testable import SessionPolicy

/// Silent mode, screen lock, record permission, media services lost / reset, hints.
@Suite struct EnvironmentTests {
    @Test func silentModeSilencesAmbientAndSoloAmbientOnly() {
        var h = EngineHarness()
        let game = h.implicit(1, .ambient)
        let clicks = h.implicit(2, .soloAmbient)
        let music = h.implicit(3, .playback)
        let recorder = h.explicit(4, .record)
        let on = h.send(.silentMode(true))
        #expect(on == [.setSilenced(game, true), .setSilenced(clicks, true)])
        _ = music; _ = recorder
        #expect(h.send(.silentMode(false)) == [.setSilenced(game, false), .setSilenced(clicks, false)])
    }

    @Test func screenLockSilencesTooAndRecordingContinues() {
        var h = EngineHarness()
        let game = h.implicit(1, .ambient)
        let recorder = h.explicit(2, .record)
        h.activate(recorder)
        let mic = h.play(recorder, .capture)
        let lock = h.send(.screenLocked(true))
        #expect(lock == [.setSilenced(game, true)])
        #expect(h.isPlaying(recorder))
        _ = mic
        // A session that becomes ambient while locked is silenced at once.
        let change = h.send(.setCategory(recorder, .ambient, mode: .default, options: []))
        #expect(change.contains(.setSilenced(recorder, true)))
    }

    @Test func deniedCaptureRecordsSilence() {
        var h = EngineHarness(.desktop)
        let app = h.implicit(1, .playAndRecord, app: "chat")
        h.send(.recordPermissionChanged(app: "chat", .denied))
        let start = h.send(.streamStarted(app, StreamID(.capture, 3)))
        #expect(start.contains(.setCaptureSilenced(app, true)))
        #expect(h.send(.recordPermissionChanged(app: "chat", .granted)) == [.setCaptureSilenced(app, false)])
        #expect(h.engine.recordPermission(for: "chat") == .granted)
    }

    @Test func undeterminedCaptureIsSilencedOnlyInStrict() {
        var strict = EngineHarness(.strict)
        let a = strict.implicit(1, .record, app: "rec")
        #expect(strict.send(.streamStarted(a, StreamID(.capture, 3))).contains(.setCaptureSilenced(a, true)))
        var desktop = EngineHarness(.desktop)
        let b = desktop.implicit(1, .record, app: "rec")
        #expect(!desktop.send(.streamStarted(b, StreamID(.capture, 3))).contains(.setCaptureSilenced(b, true)))
    }

    @Test func aMicrophoneIsNeverSilencedButByADeniedPermission() {
        var h = EngineHarness(.desktop)
        for (index, category) in [Category.soloAmbient, .playback, .ambient, .record].enumerated() {
            let app = h.implicit(UInt64(index + 1), category, app: "app\(index)")
            let start = h.send(.streamStarted(app, StreamID(.capture, UInt32(index + 10))))
            #expect(!start.contains(.setCaptureSilenced(app, true)), "\(category)")
        }
    }

    @Test func streamsAgainstTheCategoryAreRefused() {
        var h = EngineHarness()
        let player = h.explicit(1, .playback)
        let recorder = h.explicit(2, .record)
        let capture = h.send(.streamStarted(player, StreamID(.capture, 1)))
        #expect(capture.failure(player) == .cannotStartRecording)
        // Told, not silenced: nothing but a denied permission sets a microphone's volume.
        #expect(!capture.contains(.setCaptureSilenced(player, true)))
        #expect(h.send(.streamStarted(recorder, StreamID(.playback, 2))).failure(recorder) == .cannotStartPlaying)
    }

    @Test func mediaServicesLostAndReset() {
        var h = EngineHarness()
        let port = Port(uid: "speaker", nodeID: 1, type: .builtInSpeaker, direction: .output)
        h.send(.devicesEnumerated([port], defaultOutput: nil, defaultInput: nil))
        let music = h.explicit(1, .playback)
        let prompt = h.explicit(2, .playback, options: .duckOthers)
        let implicit = h.implicit(3, .playback)
        let game = h.implicit(4, .ambient)
        h.send(.silentMode(true))
        h.send(.setPreferredHardware(music, HardwareWish(sampleRate: 96_000)))
        h.activate(music)
        h.activate(prompt)
        _ = h.play(implicit)
        #expect(h.gain(music) == 0.3)
        let lost = h.send(.graphLost)
        #expect(lost.first == .mediaServicesLost)
        #expect(h.activity(implicit) == .inactive)
        #expect(h.activity(music) == .active)  // sessions are kept
        #expect(h.engine.availablePorts.isEmpty)
        #expect(h.activate(implicit).failure(implicit) == .mediaServicesFailed)
        let back = h.send(.graphRestored)
        #expect(back.first == .mediaServicesReset)
        #expect(back.contains(.setGain(music, gain: 0.3, ramp: .zero)))
        #expect(back.contains(.setSilenced(game, true)))
        #expect(back.contains(.setHardware(HardwareChoice(sampleRate: 96_000))))
    }

    @Test func hintsGoOnlyToActiveSessionsForOtherAppsAudio() {
        var h = EngineHarness(.desktop)
        let game = h.explicit(1, .ambient, app: "game")
        let sameApp = h.explicit(2, .playback, app: "game")
        let player = h.implicit(3, .playback, app: "player")
        // Inactive: nothing sent.
        let s = h.play(player)
        #expect(h.log.hints(game).isEmpty)
        h.activate(game)
        #expect(h.log.hints(game) == [.begin])
        h.send(.streamStopped(s))
        #expect(h.log.hints(game) == [.begin, .end])
        // The game's own non-mixable session is not "someone else".
        h.activate(sameApp)
        #expect(h.log.hints(game) == [.begin, .end])
        #expect(h.engine.isOtherAudioPlaying(for: game))
        #expect(!h.engine.secondaryAudioShouldBeSilencedHint(for: game))
    }
}
