import SessionPolicy
import Testing

/// Who an app is, and what its streams together make it.
struct AppCompositionTests {
    let call = Classification(category: .playAndRecord, mode: .voiceChat, priorityClass: .communication)
    var composition: AppComposition { AppComposition(call: call) }
    let music = Classification(category: .playback, priorityClass: .media)
    let unconfigured = Classification.unconfigured

    func entry(_ pid: Int32, _ executable: String) -> ProcessEntry { ProcessEntry(pid: pid, executable: executable) }

    @Test func aBrowsersProcessesAreOneAppAndTwoInstancesAreTwo() {
        let shell = entry(100, "/bin/bash")
        let main = entry(200, "/usr/lib/chromium/chromium")
        let audio = entry(300, "/usr/lib/chromium/chromium")
        let fromAudio = AppIdentity(AppFacts(lineage: [audio, main, shell], connection: 1))
        let fromMain = AppIdentity(AppFacts(lineage: [main, shell], connection: 2))
        #expect(fromAudio == fromMain)
        let other = AppIdentity(AppFacts(lineage: [entry(201, "/usr/lib/chromium/chromium"), shell], connection: 3))
        #expect(other != fromMain)
    }

    @Test func aSandboxedAppIsItsAppIDAndAnUnknownProcessItsConnection() {
        let a = AppIdentity(AppFacts(sandboxAppID: "org.example.App", lineage: [entry(1, "/a")], connection: 1))
        let b = AppIdentity(AppFacts(sandboxAppID: "org.example.App", lineage: [entry(2, "/b")], connection: 2))
        #expect(a == b)
        #expect(AppIdentity(AppFacts(connection: 7)) != AppIdentity(AppFacts(connection: 8)))
    }

    @Test func theLeadingStreamIsTheHighestClassThatRuns() {
        let notification = Classification(category: .playback, options: .duckOthers, priorityClass: .notification)
        let result = composition.classify([
            AppStream(classification: music, direction: .playback, isRunning: true),
            AppStream(classification: notification, direction: .playback, isRunning: false),
        ])
        #expect(result == AppClassification(music, reason: .rules))
        let both = composition.classify([
            AppStream(classification: music, direction: .playback, isRunning: true),
            AppStream(classification: notification, direction: .playback, isRunning: true),
        ])
        #expect(both.classification == notification)
        let configuredFirst = composition.classify([
            AppStream(classification: unconfigured, direction: .playback, isRunning: true),
            AppStream(classification: music, direction: .playback, isRunning: true),
        ])
        #expect(configuredFirst.classification == music)
    }

    @Test func aMicrophoneWhilePlayingIsACallOnlyWhileBothRun() {
        let playing = AppStream(classification: unconfigured, direction: .playback, isRunning: true)
        let microphone = AppStream(classification: unconfigured, direction: .capture, isRunning: true)
        #expect(composition.classify([playing, microphone]) == AppClassification(call, reason: .call))
        var stopped = microphone
        stopped.isRunning = false
        #expect(composition.classify([playing, stopped]).reason == .rules)
        var paused = playing
        paused.isRunning = false
        let recording = composition.classify([paused, microphone])
        #expect(recording.reason == .recording)
        #expect(recording.classification.category == .record)
    }

    /// An app no rule names that plays longer than a short sound is a player (or a game):
    /// media playback, which silent mode leaves alone. A beep stays what the rules say, and so
    /// does any app a rule classifies.
    @Test func anUnclassifiedAppThatPlaysLongIsMediaPlayback() {
        var player = AppStream(classification: unconfigured, direction: .playback, isRunning: true)
        #expect(composition.classify([player]) == AppClassification(unconfigured, reason: .rules), "a short sound so far")
        player.hasPlayedLong = true
        let playing = composition.classify([player])
        #expect(playing.reason == .playing)
        #expect(playing.classification == Classification(category: .playback, priorityClass: .media))
        player.isRunning = false
        #expect(composition.classify([player]).reason == .playing, "paused between tracks: still a player")
        let ruled = AppStream(classification: music, direction: .playback, isRunning: true, hasPlayedLong: true)
        #expect(composition.classify([ruled]) == AppClassification(music, reason: .rules))
        let notification = Classification(category: .playback, options: .duckOthers, priorityClass: .notification)
        let long = AppStream(classification: notification, direction: .playback, isRunning: true, hasPlayedLong: true)
        #expect(composition.classify([long]).classification == notification, "a rule said what it is")
        // A player that also captures from a microphone is a call, as any app.
        player.isRunning = true
        let microphone = AppStream(classification: unconfigured, direction: .capture, isRunning: true)
        #expect(composition.classify([player, microphone]) == AppClassification(call, reason: .call))
    }

    @Test func monitorsAndRulesWithInputAreNotCalls() {
        let playing = AppStream(classification: unconfigured, direction: .playback, isRunning: true)
        let monitor = AppStream(classification: unconfigured, direction: .capture, isRunning: true, capturesMonitor: true)
        let monitoring = composition.classify([playing, monitor])
        #expect(monitoring.reason == .monitoring)
        #expect(monitoring.classification.category == .playAndRecord)
        #expect(monitoring.classification.options == .mixWithOthers)
        // A DAW (media.role Production): the rules gave a category with input; theirs stands.
        let production = Classification(category: .playAndRecord, options: .mixWithOthers, priorityClass: .media)
        let daw = composition.classify([
            AppStream(classification: production, direction: .playback, isRunning: true),
            AppStream(classification: production, direction: .capture, isRunning: true),
        ])
        #expect(daw == AppClassification(production, reason: .rules))
    }

    @Test func everyHeuristicResultIsAValidConfiguration() throws {
        let classes: [Classification] = [
            unconfigured, music, Classification(category: .ambient, priorityClass: .media),
            Classification(category: .playback, mode: .voicePrompt, options: [.duckOthers, .interruptSpokenAudioAndMixWithOthers], priorityClass: .navigation),
        ]
        for leading in classes {
            for (plays, monitor) in [(true, false), (false, false), (true, true), (false, true)] {
                let result = composition.classify([
                    AppStream(classification: leading, direction: .playback, isRunning: plays),
                    AppStream(classification: leading, direction: .capture, isRunning: true, capturesMonitor: monitor),
                ])
                _ = try result.classification.validated()
            }
        }
    }
}

/// When idle and silent streams stop counting, and which are metered.
struct StreamQuietnessTests {
    let quietness = StreamQuietness.standard

    @Test func duckersAreMeteredCallsAreNotAndBothStopPromptly() {
        let notification = Classification(category: .playback, options: .duckOthers, priorityClass: .notification)
        let call = Classification(category: .playAndRecord, mode: .voiceChat, priorityClass: .communication)
        let music = Classification(category: .playback, priorityClass: .media)
        #expect(quietness.watchesLevel(of: notification))
        #expect(!quietness.watchesLevel(of: call), "a call's silence is part of the call")
        #expect(!quietness.watchesLevel(of: music))
        #expect(quietness.grace(for: notification) == quietness.quietGrace)
        #expect(quietness.grace(for: call) == quietness.quietGrace)
        #expect(quietness.grace(for: music) == quietness.idleGrace)
        #expect(quietness.quietGrace < quietness.idleGrace)
    }
}
