import Foundation
import Testing
@testable import PolicyRules

@Suite("docs/policy-rules.md: the worked examples are valid rules")
struct DocsExamplesTests {
    /// The fenced code blocks after "## Worked examples" that look like rules files.
    static func examples() throws -> [String] {
        let docs = try String(contentsOfFile: shippedRulesDirectory + "/../docs/policy-rules.md", encoding: .utf8)
        let worked = try #require(docs.range(of: "## Worked examples"))
        let blocks = docs[worked.upperBound...].components(separatedBy: "```")
        return stride(from: 1, to: blocks.count, by: 2).map { blocks[$0] }.filter { $0.contains("audiosession.") }
    }

    @Test("every worked example passes rules check on top of the shipped rules")
    func workedExamples() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 4)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (index, example) in examples.enumerated() {
            let path = try directory.write("example-\(index).conf", example)
            #expect(RulesChecker.check(paths: [path], shipped: shippedRulesDirectory) == [], "example \(index):\n\(example)")
        }
    }

    @Test("the worked examples do what they say")
    func behaviour() throws {
        let examples = try Self.examples()
        let base = try RuleSetLoader(locations: RuleLocations(shipped: shippedRulesDirectory, system: "/nonexistent", user: nil))
            .ruleFiles().map { path in try RuleSetLoader.read(path: path) }
        func set(_ marker: String) throws -> RuleSet {
            let example = try #require(examples.first { $0.contains(marker) })
            return try RuleSet.build(files: base + [RulesFile(path: "50-mine.conf", text: example)])
        }
        let duck = try set("duck.level = -12dB")
        #expect(abs(duck.configuration.duckLevel - 0.2512) < 0.001)

        let zoom = try set("ZoomWebviewHost")
        #expect(zoom.classify(properties: ["application.name": "ZOOM VoiceEngine"]).classification.mode == .voiceChat)
        #expect(zoom.classify(properties: ["pipewire.access.portal.app_id": "us.zoom.Zoom"]).classification.priorityClass.name == "communication")

        let music = try set("my-music")
        let spotify = music.classify(properties: ["application.process.binary": "spotify"])
        #expect(spotify.classification.priorityClass.name == "my-music")
        #expect(spotify.classification.priorityClass > music.configuration.priorityClasses["communication"]!)
        #expect(spotify.classification.options == [.mixWithOthers])
        #expect(spotify.origins[.priorityClass]?.file == "50-mine.conf")
    }
}
