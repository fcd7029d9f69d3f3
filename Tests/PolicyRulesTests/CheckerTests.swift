import Foundation
import Testing
@testable import PolicyRules

@Suite("rules check: every malformed file of the corpus, with its exact message")
struct CheckerTests {
    @Test("the corpus", arguments: MalformedCorpus.cases)
    func corpus(_ sample: MalformedCorpus.Case) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(sample.name + ".conf", sample.text)
        let diagnostics = RulesChecker.check(paths: [path], shipped: shippedRulesDirectory)
        #expect(diagnostics.map(\.description) == sample.expected.map { $0.replacingOccurrences(of: "FILE", with: path) })
        #expect(RulesChecker.report(diagnostics, checked: [path]) == diagnostics.map(\.description).joined(separator: "\n"))
    }

    @Test("a valid file passes, and may use classes the shipped files define")
    func validFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("50-mine.conf", """
            audiosession.settings = { duck.level = -12dB }
            audiosession.rules = [
                { matches = [ { application.process.binary = "spotify" } ]
                  actions = { classify = { options = [ mixWithOthers ] class = media } } }
            ]
            """)
        let diagnostics = RulesChecker.check(paths: [path], shipped: shippedRulesDirectory)
        #expect(diagnostics.isEmpty)
        #expect(RulesChecker.report(diagnostics, checked: [path]) == "1 file OK")
    }

    @Test("a class defined in one checked file is known to another")
    func acrossCheckedFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let classes = try directory.write("10-classes.conf", "audiosession.classes = { doorbell = { priority = 60 toward-lower = interrupt } }")
        let rules = try directory.write("20-rules.conf", """
            audiosession.rules = [ { matches = [ { application.name = "Bell" } ] actions = { classify = { class = doorbell } } } ]
            """)
        #expect(RulesChecker.check(paths: [classes, rules]).isEmpty)
        #expect(RulesChecker.check(paths: [rules]).map(\.reason) == [
            "unknown priority class 'doorbell' (known: media, notification, navigation, assistant, communication, alarm, emergency)",
        ])
    }

    @Test("a missing file is reported without a line")
    func missingFile() {
        let diagnostics = RulesChecker.check(paths: ["/nonexistent/x.conf"])
        #expect(diagnostics.map(\.description) == ["/nonexistent/x.conf: no such file"])
    }

    @Test("the shipped files pass rules check")
    func shippedFilesPass() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: shippedRulesDirectory).filter { $0.hasSuffix(".conf") }.sorted()
        #expect(names.count >= 4)
        let paths = names.map { shippedRulesDirectory + "/" + $0 }
        #expect(RulesChecker.check(paths: paths, shipped: shippedRulesDirectory) == [])
        let profiles = try FileManager.default.contentsOfDirectory(atPath: shippedRulesDirectory + "/profiles").sorted()
        #expect(profiles == ["desktop.conf", "strict.conf"])
        for profile in profiles {
            #expect(RulesChecker.check(paths: [shippedRulesDirectory + "/profiles/" + profile], shipped: shippedRulesDirectory) == [])
        }
    }

    @Test("the command's output and exit status")
    func commandResult() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let good = try directory.write("good.conf", "audiosession.settings = { duck.level = 0.5 }")
        let bad = try directory.write("bad.conf", "audiosession.settings = {\n  duck.level = 5\n}")
        let ok = RulesChecker.run(paths: [good], shipped: shippedRulesDirectory)
        #expect(ok.exitCode == 0)
        #expect(ok.output == "1 file OK")
        let failed = RulesChecker.run(paths: [good, bad], shipped: shippedRulesDirectory)
        #expect(failed.exitCode == 1)
        #expect(failed.output == "\(bad):2: duck.level as a linear factor must be between 0 and 1, found 5 (write decibels as \"-12dB\")")
        // No shipped directory on this machine: the files are checked alone.
        let alone = RulesChecker.run(paths: [good], shipped: directory.path + "/not-installed")
        #expect(alone.exitCode == 0)
    }
}
