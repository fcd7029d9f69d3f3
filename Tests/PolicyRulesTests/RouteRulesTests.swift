import SessionPolicy
import Testing
@testable import PolicyRules

/// The route rules' knobs: which new devices take over, for which categories, and port types
/// named by rules.
@Suite struct RouteRulesTests {
    @Test func takeoverDefaultsIgnoreHDMIAndDisplayPortForEveryCategory() throws {
        let configuration = try ruleSet("").configuration
        #expect(configuration.routeTakeoverIgnoredTypes == [.HDMI, .displayPort])
        #expect(configuration.routeTakeoverCategories == Set(SessionPolicy.Category.allCases))
    }

    @Test func takeoverKeysReadPortTypesAndCategories() throws {
        let configuration = try ruleSet("""
            audiosession.settings = {
                route.takeover.ignore = [ HDMI usbAudio ]
                route.takeover.categories = [ playback ]
            }
            """).configuration
        #expect(configuration.routeTakeoverIgnoredTypes == [.HDMI, .usbAudio])
        #expect(configuration.routeTakeoverCategories == [.playback])
        #expect(try ruleSet("audiosession.settings = { route.takeover.ignore = [] }").configuration.routeTakeoverIgnoredTypes.isEmpty)
    }

    @Test func badTakeoverValuesAreReportedWithTheirLine() {
        #expect(problems("audiosession.settings = {\n route.takeover.ignore = [ HDMIOutput ] }").first?.hasPrefix("a.conf:2: unknown port type 'HDMIOutput'") == true)
        #expect(problems("audiosession.settings = { route.takeover.categories = playback }").first?.contains("expects an array of category names") == true)
    }

    @Test func portRulesNameATypeAndTheLastMatchWins() throws {
        let rules = try ruleSet("""
            audiosession.port-rules = [
                { matches = [ { node.name = "~alsa_output.usb-.*" } ]  actions = { port-type = usbAudio } }
                { matches = [ { node.name = "alsa_output.usb-Yamaha.analog-stereo" } ]  actions = { port-type = lineOut } }
                { matches = [ { device.route.name = "analog-output-lineout" } ]  actions = { port-type = carAudio } }
            ]
            """)
        #expect(rules.portType(properties: ["node.name": "alsa_output.usb-Foo.analog-stereo"]) == .usbAudio)
        #expect(rules.portType(properties: ["node.name": "alsa_output.usb-Yamaha.analog-stereo"]) == .lineOut)
        #expect(rules.portType(properties: ["node.name": "card", "device.route.name": "analog-output-lineout"]) == .carAudio)
        #expect(rules.portType(properties: ["node.name": "speaker"]) == nil)
        #expect(rules.portRules.first?.origin.description == "a.conf:2")
    }

    @Test func badPortRulesAreReportedAndNothingIsHalfApplied() {
        #expect(problems("audiosession.port-rules = [ { matches = [ { node.name = x } ] actions = { port-type = HDMIOutput } } ]")
            .first?.contains("unknown port type 'HDMIOutput'") == true)
        #expect(problems("audiosession.port-rules = [ { matches = [ { node.name = x } ] actions = { classify = { category = playback } } } ]")
            .first?.contains("unknown action 'classify' in a port rule") == true)
        #expect(problems("audiosession.port-rules = { }").first?.contains("expects an array of rules") == true)
    }
}
