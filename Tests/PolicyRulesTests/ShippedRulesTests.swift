import SessionPolicy
import Testing
@testable import PolicyRules

/// The shipped defaults, loaded as the daemon loads them (no overrides).
private func shipped() throws -> RuleSet {
    try RuleSetLoader(locations: RuleLocations(shipped: shippedRulesDirectory, system: "/nonexistent", user: nil)).load()
}

@Suite("The shipped defaults classify as documented")
struct ShippedRulesTests {
    static let call = Classification(category: .playAndRecord, mode: .voiceChat, priorityClass: .communication)
    static let music = Classification(category: .playback, priorityClass: .media)
    static let movie = Classification(category: .playback, mode: .moviePlayback, priorityClass: .media)
    static let game = Classification(category: .ambient, priorityClass: .media)
    static let notification = Classification(category: .playback, options: [.duckOthers], priorityClass: .notification)
    static let prompt = Classification(category: .playback, mode: .voicePrompt,
                                       options: [.duckOthers, .interruptSpokenAudioAndMixWithOthers], priorityClass: .navigation)
    static let alarm = Classification(category: .playback, priorityClass: .alarm)
    static let emergency = Classification(category: .playback, priorityClass: .emergency)
    static let assistant = Classification(category: .playAndRecord, priorityClass: .assistant)
    static let production = Classification(category: .playAndRecord, options: [.mixWithOthers], priorityClass: .media)
    static let test = Classification(category: .playback, options: [.mixWithOthers], priorityClass: .media)

    /// Every role PipeWire and PulseAudio know, in both spellings (`pw-cat --media-role X`).
    @Test("every role, both spellings", arguments: [
        ("Music", music), ("music", music), ("Movie", movie), ("video", movie),
        ("Game", game), ("game", game), ("animation", game),
        ("Notification", notification), ("event", notification),
        ("Communication", call), ("phone", call), ("Phone", call),
        ("Alarm", alarm), ("Accessibility", prompt), ("a11y", prompt), ("Navigation", prompt),
        ("Assistant", assistant), ("Emergency", emergency), ("Alert", emergency),
        ("Production", production), ("production", production), ("Test", test), ("test", test),
    ])
    func roles(role: String, expected: Classification) throws {
        let result = try shipped().classify(properties: ["media.role": role, "application.process.binary": "pw-cat"])
        #expect(result.classification == expected)
        #expect(result.matchedRules.count == 1)
        #expect(result.matchedRules.first?.rule.file.hasSuffix("/30-roles.conf") == true)
        #expect(throws: Never.self) { try result.classification.validated() }
    }

    @Test("no role: soloAmbient, the AVAudioSession default")
    func noRole() throws {
        let result = try shipped().classify(properties: ["application.process.binary": "pw-cat"])
        #expect(result.classification == Classification(category: .soloAmbient, priorityClass: .media))
    }

    @Test("role-less apps by binary, Flatpak id, application.id or name", arguments: [
        (["application.process.binary": "zoom"], call),
        (["application.process.binary": "teams-for-linux"], call),
        (["pipewire.access.portal.app_id": "com.discordapp.Discord"], call),
        (["application.name": "ZOOM VoiceEngine"], call),
        (["application.process.binary": "spotify"], music),
        (["pipewire.access.portal.app_id": "com.spotify.Client"], music),
        (["application.id": "org.gnome.Rhythmbox3"], music),
        (["application.name": "Quod Libet"], music),
        (["application.process.binary": "totem"], movie),
        (["application.process.binary": "vlc"], music),
        (["application.process.binary": "mpv"], music),
        (["application.process.binary": "ffplay"], music),
        (["application.process.binary": "ffplay", "media.role": "Game", "application.name": "SDL Application"], music),
        (["application.process.binary": "qmmp-1"], music),
        (["application.process.binary": "mpg123"], music),
        (["application.process.binary": "gst-launch-1.0"], music),
        (["application.process.binary": "play"], music),
        (["application.process.binary": "firefox-esr", "application.name": "Firefox"], music),
        (["application.process.binary": "chromium", "application.name": "Chromium"], music),
        (["application.process.binary": "discord", "application.name": "Chromium"], call),
        (["application.process.binary": "audacity"], Classification(category: .playAndRecord, options: .mixWithOthers, priorityClass: .media)),
        (["application.process.binary": "sd_espeak-ng"], prompt),
        (["application.name": "speech-dispatcher-espeak-ng"], prompt),
        (["application.process.binary": "orca"], prompt),
        (["application.process.binary": "supertuxkart"], game),
        (["application.process.binary": "MyGame.x86_64"], game),
        (["application.process.binary": "gpodder"], Classification(category: .playback, mode: .spokenAudio, priorityClass: .media)),
    ] as [([String: String], Classification)])
    func apps(properties: [String: String], expected: Classification) throws {
        let result = try shipped().classify(properties: properties)
        #expect(result.classification == expected)
        #expect(result.origins[.category]?.file.hasSuffix("/40-apps.conf") == true)
    }

    @Test("SDL's Game tag alone says nothing: an unknown SDL program is unclassified")
    func sdlTag() throws {
        let result = try shipped().classify(properties: [
            "media.role": "Game", "application.name": "SDL Application", "application.process.binary": "someprogram",
        ])
        #expect(result.classification == Classification(category: .soloAmbient, priorityClass: .media))
    }

    @Test("a regex is anchored where the shipped file anchors it")
    func anchoring() throws {
        let set = try shipped()
        #expect(set.classify(properties: ["application.process.binary": "zoomer"]).classification.category == .soloAmbient)
        #expect(set.classify(properties: ["application.process.binary": "myspotify"]).classification.category == .soloAmbient)
    }

    @Test("an app that declares a role keeps its role's classification")
    func declaredRoleWins() throws {
        let result = try shipped().classify(properties: ["media.role": "Notification", "application.process.binary": "discord"])
        #expect(result.classification == Self.notification)
    }

    @Test("the shipped settings are the desktop profile with the documented knobs")
    func settings() throws {
        let config = try shipped().configuration
        #expect(config.profile == .desktop)
        #expect(config.equalClassRule == .classInteraction)
        #expect(config.duckLevel == 0.3)
        #expect(config.duckRamp == .milliseconds(250))
        #expect(config.unduckRamp == .milliseconds(500))
        #expect(config.interruptionMethods == [.sessionAPI, .mpris, .unlink, .mute])
        #expect(config.resumeAfterInterruption)
        #expect(config.pauseOnUnplug == [.playback])
        #expect(config.silencedBySilentMode == [.ambient, .soloAmbient])
        #expect(config.hardwareArbitration)
        #expect(Set(config.priorityClasses.values) == Set(PriorityClass.builtIn))
    }

    @Test("the engine's role table covers every shipped role, lower-cased")
    func engineRoleTable() throws {
        let table = try shipped().configuration.roleClassifications
        for role in ["music", "movie", "video", "game", "notification", "event", "communication", "phone", "alarm",
                     "accessibility", "a11y", "navigation", "assistant", "emergency", "alert", "production", "test", "animation"] {
            #expect(table[role] != nil, "no engine entry for \(role)")
        }
    }

    @Test("desktop: media mixes with media; strict: a non-mixable activation interrupts")
    func profiles() throws {
        let desktop = try RulesFile(path: "desktop.conf", text: String(contentsOfFile: shippedRulesDirectory + "/profiles/desktop.conf", encoding: .utf8))
        let strict = try RulesFile(path: "strict.conf", text: String(contentsOfFile: shippedRulesDirectory + "/profiles/strict.conf", encoding: .utf8))
        let base = try RuleSetLoader(locations: RuleLocations(shipped: shippedRulesDirectory, system: "/nonexistent", user: nil)).ruleFiles()
            .map { path in try RuleSetLoader.read(path: path) }
        let desktopSet = try RuleSet.build(files: base + [desktop])
        #expect(desktopSet.configuration.equalClassRule == .classInteraction)
        #expect(desktopSet.configuration.priorityClasses["media"]?.towardEqual == .mix)
        let strictSet = try RuleSet.build(files: base + [strict])
        #expect(strictSet.configuration.profile == .strict)
        #expect(strictSet.configuration.equalClassRule == .categoryRules)
        #expect(strictSet.configuration.silenceUndeterminedCapture)
        // In strict, two music players are each non-mixable playback: the engine's category rule decides.
        let music = try strictSet.classify(properties: ["media.role": "Music"]).classification.validated()
        #expect(!music.isMixable)
        let game = try strictSet.classify(properties: ["media.role": "Game"]).classification.validated()
        #expect(game.isMixable)
    }
}
