import Foundation
import SessionPolicy
import Testing
@testable import PolicyRules

@Suite("audiosession.rules: matching and classify")
struct ClassifyTests {
    static let rules = """
        audiosession.rules = [
            {
                matches = [ { media.role = null } ]
                actions = { classify = { category = soloAmbient } }
            }
            {
                matches = [ { media.role = "Music" } { media.role = "music" } ]
                actions = { classify = { category = playback class = media } }
            }
            {
                matches = [ { media.role = null application.process.binary = "~^zoom$" } ]
                actions = { classify = { category = playAndRecord mode = voiceChat class = communication } }
            }
            {
                matches = [ { application.name = "Player" } ]
                actions = { classify = { options = [ mixWithOthers ] } }
            }
            {
                matches = [ { application.name = "Ducker" } ]
                actions = { classify = { interaction = duck } }
            }
        ]
        """

    @Test("every key of classify")
    func everyKey() throws {
        let set = try ruleSet("""
            audiosession.rules = [ { matches = [ { a = b } ]
              actions = { classify = { category = playAndRecord mode = videoChat options = [ defaultToSpeaker allowBluetooth ] class = assistant interaction = duck } } } ]
            """)
        let result = set.classify(properties: ["a": "b"]).classification
        #expect(result == Classification(category: .playAndRecord, mode: .videoChat, options: [.defaultToSpeaker, .allowBluetooth],
                                         priorityClass: .assistant, interaction: .duck))
        #expect(result.effectiveInteraction == .duck)
    }

    @Test("a role, both spellings")
    func roles() throws {
        let set = try ruleSet(Self.rules)
        for role in ["Music", "music"] {
            let result = set.classify(properties: ["media.role": role])
            #expect(result.classification.category == .playback)
            #expect(result.matchedRules.map(\.rule.line) == [6])
        }
    }

    @Test("no role: the null rule")
    func noRole() throws {
        let result = try ruleSet(Self.rules).classify(properties: ["application.name": "x"])
        #expect(result.classification.category == .soloAmbient)
        #expect(result.matchedRules.first?.conditions == [MatchedCondition(key: "media.role", pattern: "null", value: nil)])
    }

    @Test("an unknown role matches nothing: engine defaults")
    func unknownRole() throws {
        let result = try ruleSet(Self.rules).classify(properties: ["media.role": "Whatever"])
        #expect(result.classification == .unconfigured)
        #expect(result.matchedRules.isEmpty)
        #expect(result.explanation.contains("no rule matched: engine defaults"))
    }

    @Test("a role-less app by binary name; a later rule overrides earlier ones")
    func byBinary() throws {
        let result = try ruleSet(Self.rules).classify(properties: ["application.process.binary": "zoom"])
        #expect(result.classification == Classification(category: .playAndRecord, mode: .voiceChat, priorityClass: .communication))
        #expect(result.matchedRules.map(\.rule.line) == [2, 10])
        #expect(result.origins[.category]?.line == 10)
        #expect(result.origins[.priorityClass]?.line == 10)
    }

    @Test("an app with a role is not classified by binary")
    func roleWins() throws {
        let result = try ruleSet(Self.rules).classify(properties: ["media.role": "Music", "application.process.binary": "zoom"])
        #expect(result.classification.category == .playback)
    }

    @Test("options-only and interaction-only rules add to what earlier rules decided")
    func partial() throws {
        let set = try ruleSet(Self.rules)
        let player = set.classify(properties: ["media.role": "Music", "application.name": "Player"])
        #expect(player.classification.category == .playback)
        #expect(player.classification.options == [.mixWithOthers])
        #expect(player.origins[.category]?.line == 6)
        #expect(player.origins[.options]?.line == 14)
        let ducker = set.classify(properties: ["media.role": "Music", "application.name": "Ducker"])
        #expect(ducker.classification.interaction == .duck)
    }

    @Test("setting a category resets mode and options (not sticky, as setCategory)")
    func categoryResets() throws {
        let set = try ruleSet("""
            audiosession.rules = [
              { matches = [ { a = x } ] actions = { classify = { category = playAndRecord mode = voiceChat options = [ defaultToSpeaker ] } } }
              { matches = [ { b = y } ] actions = { classify = { category = playback } } }
            ]
            """)
        let result = set.classify(properties: ["a": "x", "b": "y"]).classification
        #expect(result.category == .playback)
        #expect(result.mode == .default)
        #expect(result.options == [])
    }

    @Test("an option the final category refuses is dropped, and the explanation says so")
    func refusedOption() throws {
        let set = try ruleSet("""
            audiosession.rules = [
              { matches = [ { a = x } ] actions = { classify = { category = playback } } }
              { matches = [ { b = y } ] actions = { classify = { options = [ defaultToSpeaker mixWithOthers ] } } }
            ]
            """)
        let result = set.classify(properties: ["a": "x", "b": "y"])
        #expect(result.classification.options == [.mixWithOthers])
        #expect(result.notes == ["dropped option defaultToSpeaker: category playback does not accept it"])
        #expect(throws: Never.self) { try result.classification.validated() }
    }

    @Test("explain names the rule, the clause and the values seen")
    func explain() throws {
        let result = try ruleSet(Self.rules).classify(properties: ["application.process.binary": "zoom"])
        #expect(result.explanation == [
            "category playAndRecord, mode voiceChat, options [], class communication, interaction interrupt",
            "rule a.conf:2 matched (clause at line 3: media.role = null (absent)) and set category=soloAmbient",
            "rule a.conf:10 matched (clause at line 11: media.role = null (absent), application.process.binary = \"~^zoom$\" (is \"zoom\")) and set category=playAndRecord, mode=voiceChat, class=communication",
            "category from a.conf:10",
            "mode from a.conf:10",
            "options from a.conf:10",
            "class from a.conf:10",
        ])
    }

    @Test("the engine's role table and default are derived from the rules")
    func engineTables() throws {
        let config = try ruleSet(Self.rules).configuration
        #expect(config.roleClassifications["music"]?.category == .playback)
        #expect(config.roleClassifications.count == 1)
        #expect(config.defaultClassification.category == .soloAmbient)
    }

    @Test("the daemon's classification without explanation is the explained one's")
    func unexplainedIsTheSame() throws {
        let refusing = try ruleSet("""
            audiosession.rules = [
              { matches = [ { a = x } ] actions = { classify = { category = playback } } }
              { matches = [ { b = y } ] actions = { classify = { options = [ defaultToSpeaker mixWithOthers ] class = assistant } } }
            ]
            """)
        let shipped = try RuleSetLoader.load(
            paths: try FileManager.default.contentsOfDirectory(atPath: shippedRulesDirectory)
                .filter { $0.hasSuffix(".conf") }.sorted().map { shippedRulesDirectory + "/" + $0 })
        let streams: [[String: String]] = [
            [:], ["media.role": ""], ["media.role": "Music"], ["media.role": "Communication"], ["media.role": "phone"],
            ["media.role": "Notification", "application.name": "Ducker"], ["application.name": "Player"],
            ["application.process.binary": "zoom"], ["application.process.binary": "firefox", "media.role": "Movie"],
            ["a": "x", "b": "y"], ["b": "y"], ["audiosession.category": "playAndRecord", "audiosession.mode": "voiceChat"],
        ]
        for set in [try ruleSet(Self.rules), refusing, shipped] {
            for properties in streams {
                #expect(set.classification(of: properties) == set.classify(properties: properties).classification, "\(properties)")
            }
        }
    }

    @Test("classification is deterministic")
    func deterministic() throws {
        let set = try ruleSet(Self.rules)
        let properties = ["application.process.binary": "zoom", "application.name": "Player"]
        #expect(set.classify(properties: properties) == set.classify(properties: properties))
    }
}

@Suite("rules explain report")
struct ExplanationReportTests {
    @Test("streams by id, each with its classification and rules")
    func report() throws {
        let set = try ruleSet(ClassifyTests.rules)
        let zoom = ["application.process.binary": "zoom", "application.name": "Zoom", "media.name": "call"]
        let music = ["media.role": "Music", "node.name": "mpv"]
        let text = RulesExplanation.text([
            .init(id: 42, name: RulesExplanation.Stream.name(properties: zoom, nodeName: "n"), classification: set.classify(properties: zoom)),
            .init(id: 7, name: RulesExplanation.Stream.name(properties: music, nodeName: "mpv"), classification: set.classify(properties: music)),
        ], ruleSet: set)
        #expect(text == """
            rules: 1 file (profile desktop)
              a.conf

            stream 7 mpv
              category playback, mode default, options [], class media, interaction mix
              rule a.conf:6 matched (clause at line 7: media.role = "Music" (is "Music")) and set category=playback, class=media
              category from a.conf:6
              mode from a.conf:6
              options from a.conf:6
              class from a.conf:6

            stream 42 Zoom: call
              category playAndRecord, mode voiceChat, options [], class communication, interaction interrupt
              rule a.conf:2 matched (clause at line 3: media.role = null (absent)) and set category=soloAmbient
              rule a.conf:10 matched (clause at line 11: media.role = null (absent), application.process.binary = "~^zoom$" (is "zoom")) and set category=playAndRecord, mode=voiceChat, class=communication
              category from a.conf:10
              mode from a.conf:10
              options from a.conf:10
              class from a.conf:10

            """)
        #expect(RulesExplanation.text([], ruleSet: set).hasSuffix("no streams\n"))
    }
}
