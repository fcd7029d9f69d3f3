/// Malformed rules files, each with the exact report `rules check` must print for it.
/// `FILE` stands for the file's path.
enum MalformedCorpus {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var text: String
        var expected: [String]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "truncated-object", text: """
            audiosession.settings = {
                duck.level = 0.3

            """, expected: ["FILE:2: unexpected end of file: '{' opened on line 1 is never closed"]),
        Case(name: "truncated-rules", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } ]
                  actions = { classify = { category = playback } }
            """, expected: ["FILE:3: unexpected end of file: '{' opened on line 2 is never closed"]),
        Case(name: "truncated-string", text: """
            audiosession.settings = { profile = "desk
            """, expected: ["FILE:1: string not closed before the end of the file"]),
        Case(name: "mismatched-bracket", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } }
            ]
            """, expected: ["FILE:2: expected ']' to close '[' from line 2, found '}'"]),
        Case(name: "wrong-type-settings", text: """
            audiosession.settings = {
                duck.ramp-ms = "quick"
            }
            """, expected: ["FILE:2: duck.ramp-ms expects a whole number of milliseconds, found the string \"quick\""]),
        Case(name: "wrong-type-matches", text: """
            audiosession.rules = [
                { matches = { media.role = "Music" } actions = { classify = { category = playback } } }
            ]
            """, expected: ["FILE:2: matches expects an array of objects, found an object"]),
        Case(name: "wrong-type-options", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } ]
                  actions = { classify = { category = playback options = mixWithOthers } } }
            ]
            """, expected: ["FILE:3: options expects an array of option names, found the word mixWithOthers"]),
        Case(name: "wrong-type-rule", text: """
            audiosession.rules = [ "Music" ]
            """, expected: ["FILE:1: a rule must be an object with matches and actions, found the string \"Music\""]),
        Case(name: "wrong-type-pattern", text: """
            audiosession.rules = [
                { matches = [ { media.role = [ Music Movie ] } ] actions = { classify = { category = playback } } }
            ]
            """, expected: ["FILE:2: media.role: expected a string, a ~regex or null, found an array"]),
        Case(name: "unknown-section", text: """
            stream.rules = [ ]
            """, expected: ["FILE:1: unknown section 'stream.rules' (known: audiosession.settings, audiosession.classes, audiosession.rules, audiosession.port-rules)"]),
        Case(name: "unknown-setting", text: """
            audiosession.settings = {
                duck.volume = 0.3
            }
            """, expected: ["FILE:2: unknown setting 'duck.volume' (known: profile, equal-class, duck.level, duck.ramp-ms, unduck.ramp-ms, interruption.methods, interruption.resume, interruption.spare-recorders, interruption.spare-opening-apps, unplug.pause, route.takeover.ignore, route.takeover.categories, silent-mode.categories, hardware.arbitration, hardware.default-rate, hardware.default-quantum, hardware.min-quantum, hardware.max-quantum, hardware.allowed-rates, capture.silence-undetermined, secondary-audio-hints, bluetooth.profile-switching)"]),
        Case(name: "unknown-rule-key", text: """
            audiosession.rules = [
                { name = "music" matches = [ { media.role = "Music" } ] actions = { classify = { category = playback } } }
            ]
            """, expected: ["FILE:2: unknown key 'name' in a rule (known: matches, actions)"]),
        Case(name: "unknown-action", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } ] actions = { update-props = { media.role = "Movie" } } }
            ]
            """, expected: ["FILE:2: unknown action 'update-props' (known: classify)"]),
        Case(name: "unknown-classify-key", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } ]
                  actions = { classify = { category = playback priority = 10 } } }
            ]
            """, expected: ["FILE:3: unknown key 'priority' in classify (known: category, mode, options, class, interaction)"]),
        Case(name: "unknown-category", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } ]
                  actions = { classify = { category = music } } }
            ]
            """, expected: ["FILE:3: unknown category 'music' (known: ambient, soloAmbient, playback, record, playAndRecord, multiRoute, audioProcessing)"]),
        Case(name: "unknown-mode", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Phone" } ]
                  actions = { classify = { category = playAndRecord mode = voiceCall } } }
            ]
            """, expected: ["FILE:3: unknown mode 'voiceCall' (known: default, voiceChat, gameChat, videoRecording, measurement, moviePlayback, videoChat, spokenAudio, voicePrompt)"]),
        Case(name: "unknown-option", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } ]
                  actions = { classify = {
                      category = playback
                      options = [ mixWithOthers duckOther ]
                  } } }
            ]
            """, expected: ["FILE:5: unknown option 'duckOther' (known: mixWithOthers, duckOthers, allowBluetooth, defaultToSpeaker, interruptSpokenAudioAndMixWithOthers, allowBluetoothA2DP, allowAirPlay, overrideMutedMicrophoneInterruption)"]),
        Case(name: "unknown-class", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } ]
                  actions = { classify = { category = playback class = music } } }
            ]
            """, expected: ["FILE:3: unknown priority class 'music' (known: media, notification, navigation, assistant, communication, alarm, emergency)"]),
        Case(name: "unknown-interaction", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } ]
                  actions = { classify = { interaction = pause } } }
            ]
            """, expected: ["FILE:3: unknown interaction 'pause' (known: mix, duck, interrupt)"]),
        Case(name: "invalid-regex", text: """
            audiosession.rules = [
                { matches = [ { application.process.binary = "~^(zoom|teams$" } ]
                  actions = { classify = { category = playAndRecord } } }
            ]
            """, expected: ["FILE:2: application.process.binary: invalid regex '^(zoom|teams$': Unmatched ( or \\("]),
        Case(name: "invalid-option-for-category", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } ]
                  actions = { classify = { category = playback options = [ defaultToSpeaker ] } } }
            ]
            """, expected: ["FILE:3: category 'playback' does not accept option 'defaultToSpeaker' (badParam, -50)"]),
        Case(name: "invalid-options-for-soloAmbient", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Game" } ]
                  actions = { classify = {
                      category = soloAmbient
                      options = [ mixWithOthers allowBluetooth ]
                  } } }
            ]
            """, expected: ["FILE:5: category 'soloAmbient' does not accept options 'mixWithOthers', 'allowBluetooth' (badParam, -50)"]),
        Case(name: "empty-match-object", text: """
            audiosession.rules = [
                { matches = [ { } ] actions = { classify = { category = playback } } }
            ]
            """, expected: ["FILE:2: empty match object {} never matches (PipeWire needs at least one property)"]),
        Case(name: "missing-actions", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } ] }
            ]
            """, expected: ["FILE:2: rule has no 'actions'"]),
        Case(name: "empty-classify", text: """
            audiosession.rules = [
                { matches = [ { media.role = "Music" } ] actions = { classify = { } } }
            ]
            """, expected: ["FILE:2: classify sets nothing"]),
        Case(name: "several-problems", text: """
            audiosession.settings = { duck.level = 2 }
            audiosession.rules = [
                { matches = [ { media.role = "~[" } ] actions = { classify = { category = playback } } }
                { matches = [ { media.role = "Game" } ] actions = { classify = { category = arcade } } }
            ]
            """, expected: [
                "FILE:1: duck.level as a linear factor must be between 0 and 1, found 2 (write decibels as \"-12dB\")",
                "FILE:3: media.role: invalid regex '[': Invalid regular expression",
                "FILE:4: unknown category 'arcade' (known: ambient, soloAmbient, playback, record, playAndRecord, multiRoute, audioProcessing)",
            ]),
    ]
}
