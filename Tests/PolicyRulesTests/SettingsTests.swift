import SessionPolicy
import Testing
@testable import PolicyRules

private func configuration(_ settings: String) throws -> PolicyConfiguration {
    try ruleSet("audiosession.settings = { \(settings) }").configuration
}

@Suite("audiosession.settings: every key")
struct SettingsTests {
    @Test("no settings: the desktop profile's configuration")
    func defaults() throws {
        let config = try ruleSet("").configuration
        #expect(config.profile == .desktop)
        #expect(config.equalClassRule == PolicyConfiguration.desktop.equalClassRule)
        #expect(config.duckLevel == PolicyConfiguration.desktop.duckLevel)
    }

    @Test("profile picks the base configuration")
    func profile() throws {
        let strict = try configuration("profile = strict")
        #expect(strict.profile == .strict)
        #expect(strict.equalClassRule == .categoryRules)
        #expect(strict.silenceUndeterminedCapture)
        let desktop = try configuration("profile = desktop")
        #expect(desktop.equalClassRule == .classInteraction)
        #expect(!desktop.silenceUndeterminedCapture)
    }

    @Test("equal-class overrides the profile's rule")
    func equalClass() throws {
        #expect(try configuration("profile = strict equal-class = classInteraction").equalClassRule == .classInteraction)
        #expect(try configuration("equal-class = categoryRules").equalClassRule == .categoryRules)
    }

    @Test("duck.level: linear, or decibels in several spellings")
    func duckLevel() throws {
        #expect(try configuration("duck.level = 0.25").duckLevel == 0.25)
        #expect(try configuration("duck.level = 1").duckLevel == 1)
        #expect(abs(try configuration("duck.level = -12dB").duckLevel - 0.251188643) < 1e-6)
        #expect(abs(try configuration(#"duck.level = "-12 dB""#).duckLevel - 0.251188643) < 1e-6)
        #expect(abs(try configuration("duck.level = -6db").duckLevel - 0.501187234) < 1e-6)
        #expect(try configuration("duck.level = 0dB").duckLevel == 1)
    }

    @Test("ramps in milliseconds")
    func ramps() throws {
        let config = try configuration("duck.ramp-ms = 120 unduck.ramp-ms = 0")
        #expect(config.duckRamp == .milliseconds(120))
        #expect(config.unduckRamp == .zero)
    }

    @Test("interruption methods in preference order; resume on/off")
    func interruption() throws {
        let config = try configuration("interruption.methods = [ mpris mute ] interruption.resume = false")
        #expect(config.interruptionMethods == [.mpris, .mute])
        #expect(!config.resumeAfterInterruption)
        #expect(try configuration("interruption.resume = true").resumeAfterInterruption)
    }

    @Test("unplug.pause: categories, or true / false")
    func unplug() throws {
        #expect(try configuration("unplug.pause = [ playback playAndRecord ]").pauseOnUnplug == [.playback, .playAndRecord])
        #expect(try configuration("unplug.pause = false").pauseOnUnplug == [])
        #expect(try configuration("unplug.pause = true").pauseOnUnplug == [.playback])
    }

    @Test("silent-mode.categories")
    func silentMode() throws {
        #expect(try configuration("silent-mode.categories = [ ambient ]").silencedBySilentMode == [.ambient])
        #expect(try configuration("silent-mode.categories = [ ]").silencedBySilentMode == [])
    }

    @Test("hardware arbitration and limits")
    func hardware() throws {
        let config = try configuration("""
            hardware.arbitration = false hardware.default-rate = 44100 hardware.default-quantum = 512
            hardware.min-quantum = 64 hardware.max-quantum = 2048 hardware.allowed-rates = [ 48000 44100 ]
            """)
        #expect(!config.hardwareArbitration)
        #expect(config.hardwareLimits.defaultSampleRate == 44100)
        #expect(config.hardwareLimits.defaultQuantum == 512)
        #expect(config.hardwareLimits.quantumRange == 64...2048)
        #expect(config.hardwareLimits.allowedSampleRates == [44100, 48000])
    }

    @Test("capture.silence-undetermined and secondary-audio-hints")
    func flags() throws {
        #expect(try configuration("capture.silence-undetermined = true").silenceUndeterminedCapture)
        #expect(!(try configuration("secondary-audio-hints = false").secondaryAudioHints))
    }

    @Test("bluetooth.profile-switching")
    func headsetProfileSwitching() throws {
        #expect(try configuration("").headsetProfileSwitching == .auto)
        #expect(try configuration("bluetooth.profile-switching = never").headsetProfileSwitching == .never)
        #expect(try configuration("bluetooth.profile-switching = daemon").headsetProfileSwitching == .daemon)
    }

    @Test("every key is tested above and documented")
    func everyKeyDocumented() throws {
        let docs = try String(contentsOfFile: shippedRulesDirectory + "/../docs/policy-rules.md", encoding: .utf8)
        for key in SettingKey.allCases {
            #expect(docs.contains("`\(key.rawValue)`"), "docs/policy-rules.md does not document \(key.rawValue)")
        }
        for key in ClassDefinition.Key.allCases { #expect(docs.contains("`\(key.rawValue)`")) }
        for key in ClassifyAction.Key.allCases { #expect(docs.contains("`\(key.rawValue)`")) }
        for section in RulesFile.Section.allCases { #expect(docs.contains("`\(section.rawValue)`")) }
    }

    @Test("bad values name the key and what was found", arguments: [
        ("profile = loose", "a.conf:1: unknown profile 'loose' (known: desktop, strict)"),
        ("equal-class = 3", "a.conf:1: unknown equal-class rule '3' (known: classInteraction, categoryRules)"),
        ("duck.level = 1.5", "a.conf:1: duck.level as a linear factor must be between 0 and 1, found 1.5 (write decibels as \"-12dB\")"),
        ("duck.level = 6dB", "a.conf:1: duck.level must not amplify: 6dB is above 0 dB"),
        ("duck.level = loud", "a.conf:1: duck.level expects a linear factor (0.3) or decibels (\"-12dB\"), found the word loud"),
        ("duck.level = xdB", "a.conf:1: duck.level: 'xdB' is not a number of decibels"),
        ("duck.ramp-ms = \"fast\"", "a.conf:1: duck.ramp-ms expects a whole number of milliseconds, found the string \"fast\""),
        ("duck.ramp-ms = 2.5", "a.conf:1: duck.ramp-ms expects a whole number of milliseconds, found the number 2.5"),
        ("unduck.ramp-ms = 100000", "a.conf:1: unduck.ramp-ms must be between 0 and 60000 ms, found 100000"),
        ("interruption.methods = mpris", "a.conf:1: interruption.methods expects an array of interruption method names, found the word mpris"),
        ("interruption.methods = [ dbus ]", "a.conf:1: unknown interruption method 'dbus' (known: sessionAPI, mpris, unlink, mute)"),
        ("interruption.methods = [ ]", "a.conf:1: interruption.methods needs at least one method"),
        ("interruption.methods = [ mute mute ]", "a.conf:1: interruption.methods lists 'mute' twice"),
        ("interruption.resume = yes", "a.conf:1: interruption.resume expects true or false, found the word yes"),
        ("unplug.pause = [ music ]", "a.conf:1: unknown category 'music' (known: ambient, soloAmbient, playback, record, playAndRecord, multiRoute, audioProcessing)"),
        ("silent-mode.categories = ambient", "a.conf:1: silent-mode.categories expects an array of category names, found the word ambient"),
        ("hardware.arbitration = 1", "a.conf:1: hardware.arbitration expects true or false, found the number 1"),
        ("hardware.default-rate = 100", "a.conf:1: hardware.default-rate: 100 Hz is outside 8000...768000"),
        ("hardware.default-quantum = big", "a.conf:1: hardware.default-quantum expects a whole number of frames, found the word big"),
        ("hardware.allowed-rates = [ ]", "a.conf:1: hardware.allowed-rates needs at least one rate"),
        ("hardware.allowed-rates = 48000", "a.conf:1: hardware.allowed-rates expects an array of sample rates, found the number 48000"),
        ("hardware.min-quantum = 4096 hardware.max-quantum = 1024", "a.conf:1: hardware.max-quantum 1024 is below hardware.min-quantum 4096"),
        ("hardware.default-quantum = 16384", "a.conf:1: hardware.default-quantum 16384 is outside hardware.min-quantum...hardware.max-quantum (32...8192)"),
        ("hardware.default-rate = 12345", "a.conf:1: hardware.default-rate 12345 is not in hardware.allowed-rates"),
        ("capture.silence-undetermined = null", "a.conf:1: capture.silence-undetermined expects true or false, found null"),
        ("secondary-audio-hints = [ ]", "a.conf:1: secondary-audio-hints expects true or false, found an array"),
        ("bluetooth.profile-switching = wireplumber", "a.conf:1: unknown profile switching 'wireplumber' (known: auto, daemon, never)"),
        ("duck.levle = 0.3", "a.conf:1: unknown setting 'duck.levle' (known: profile, equal-class, duck.level, duck.ramp-ms, unduck.ramp-ms, interruption.methods, interruption.resume, interruption.spare-recorders, interruption.spare-opening-apps, unplug.pause, route.takeover.ignore, route.takeover.categories, silent-mode.categories, hardware.arbitration, hardware.default-rate, hardware.default-quantum, hardware.min-quantum, hardware.max-quantum, hardware.allowed-rates, capture.silence-undetermined, secondary-audio-hints, bluetooth.profile-switching)"),
    ])
    func badValues(settings: String, expected: String) {
        #expect(problems("audiosession.settings = { \(settings) }") == [expected])
    }

    @Test("settings must be an object")
    func notAnObject() {
        #expect(problems("audiosession.settings = [ ]") == ["a.conf:1: audiosession.settings expects an object, found an array"])
    }
}
