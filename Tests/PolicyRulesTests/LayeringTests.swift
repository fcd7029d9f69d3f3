import Foundation
import SessionPolicy
import Testing
@testable import PolicyRules

@Suite("Layering: shipped < /etc < user < --rules, files in name order, key by key")
struct LayeringTests {
    @Test("later files override settings key by key")
    func settingsKeyByKey() throws {
        let config = try ruleSet(
            "audiosession.settings = { duck.level = 0.5 duck.ramp-ms = 100 }",
            "audiosession.settings = { duck.level = 0.2 }"
        ).configuration
        #expect(config.duckLevel == 0.2)
        #expect(config.duckRamp == .milliseconds(100))
    }

    @Test("a later profile changes the base, explicit keys from any layer still apply")
    func profileLayering() throws {
        let config = try ruleSet(
            "audiosession.settings = { profile = desktop duck.level = 0.5 }",
            "audiosession.settings = { profile = strict }"
        ).configuration
        #expect(config.profile == .strict)
        #expect(config.equalClassRule == .categoryRules)
        #expect(config.duckLevel == 0.5)
    }

    @Test("within one object the last duplicate key wins")
    func duplicateKeys() throws {
        #expect(try ruleSet("audiosession.settings = { duck.level = 0.5 duck.level = 0.1 }").configuration.duckLevel == 0.1)
    }

    @Test("rules of later files apply after earlier ones, so they override")
    func rulesOrder() throws {
        let set = try ruleSet(
            "audiosession.rules = [ { matches = [ { media.role = Music } ] actions = { classify = { category = playback } } } ]",
            "audiosession.rules = [ { matches = [ { media.role = Music } ] actions = { classify = { options = [ mixWithOthers ] } } } ]"
        )
        let result = set.classify(properties: ["media.role": "Music"])
        #expect(result.classification.category == .playback)
        #expect(result.classification.options == [.mixWithOthers])
        #expect(result.matchedRules.map(\.rule.file) == ["a.conf", "b.conf"])
    }

    @Test("directories in precedence order, each directory's *.conf in byte order")
    func directoryOrder() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("shipped/20-b.conf", "audiosession.settings = { duck.level = 0.2 duck.ramp-ms = 20 }")
        try root.write("shipped/10-a.conf", "audiosession.settings = { duck.level = 0.1 duck.ramp-ms = 10 unduck.ramp-ms = 10 }")
        try root.write("shipped/README", "not a rules file")
        try root.write("shipped/.#30-c.conf", "broken {")
        try root.write("etc/50-admin.conf", "audiosession.settings = { duck.ramp-ms = 50 }")
        try root.write("user/90-me.conf", "audiosession.settings = { unduck.ramp-ms = 90 }")
        try root.write("extra/00-cli.conf", "audiosession.settings = { hardware.arbitration = false }")
        let locations = RuleLocations(shipped: root.path + "/shipped", system: root.path + "/etc",
                                      user: root.path + "/user", extra: [root.path + "/extra"])
        let loader = RuleSetLoader(locations: locations)
        #expect(try loader.ruleFiles() == [
            root.path + "/shipped/10-a.conf", root.path + "/shipped/20-b.conf",
            root.path + "/etc/50-admin.conf", root.path + "/user/90-me.conf", root.path + "/extra/00-cli.conf",
        ])
        let config = try loader.load().configuration
        #expect(config.duckLevel == 0.2)
        #expect(config.duckRamp == .milliseconds(50))
        #expect(config.unduckRamp == .milliseconds(90))
        #expect(!config.hardwareArbitration)
    }

    @Test("missing override directories are fine; a missing shipped directory is not")
    func missingDirectories() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("shipped/10.conf", "")
        let fine = RuleSetLoader(locations: RuleLocations(shipped: root.path + "/shipped", system: root.path + "/none", user: nil))
        #expect(try fine.load().files == [root.path + "/shipped/10.conf"])
        let broken = RuleSetLoader(locations: RuleLocations(shipped: root.path + "/absent", system: root.path + "/none", user: nil))
        #expect(throws: RulesError([RulesDiagnostic(file: root.path + "/absent", line: nil,
            reason: "shipped rules directory not found (set AUDIOSESSION_RULES_DIR)")])) { try broken.load() }
    }

    @Test("a file that is not UTF-8 text is refused")
    func notText() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let path = root.path + "/bad.conf"
        try Data([0x61, 0x20, 0x3D, 0x20, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: path))
        #expect(throws: RulesError([RulesDiagnostic(file: path, line: nil, reason: "not UTF-8 text")])) {
            _ = try RuleSetLoader.read(path: path)
        }
    }

    @Test("one bad file anywhere: the whole set is refused, with every problem")
    func wholeOrNothing() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("shipped/10.conf", "audiosession.settings = { duck.level = 0.1 }")
        try root.write("user/a.conf", "audiosession.settings = { duck.level = 5 }")
        try root.write("user/b.conf", "audiosession.settings = { profile = none }")
        let loader = RuleSetLoader(locations: RuleLocations(shipped: root.path + "/shipped", system: root.path + "/etc", user: root.path + "/user"))
        do {
            _ = try loader.load()
            Issue.record("a broken set loaded")
        } catch {
            #expect(error.diagnostics.map(\.file) == [root.path + "/user/a.conf", root.path + "/user/b.conf"])
        }
    }
}

@Suite("Locations of the rule directories")
struct LocationsTests {
    @Test("AUDIOSESSION_RULES_DIR wins")
    func environmentOverride() {
        #expect(RuleLocations.shippedDirectory(environment: ["AUDIOSESSION_RULES_DIR": "/x"], executablePath: "/usr/bin/audiosessiond") == "/x")
    }

    @Test("a repo build finds <repo>/policy-rules above its build directory")
    func checkout() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("Package.swift", "// swift-tools-version:6.1")
        try root.write("policy-rules/10.conf", "")
        try root.write(".build-x/x86_64-unknown-linux-gnu/debug/audiosessiond", "")
        let executable = root.path + "/.build-x/x86_64-unknown-linux-gnu/debug/audiosessiond"
        #expect(RuleLocations.shippedDirectory(environment: [:], executablePath: executable) == URL(fileURLWithPath: root.path).resolvingSymlinksInPath().path + "/policy-rules")
    }

    @Test("an installed binary finds <prefix>/share/audiosession/policy-rules beside <prefix>/bin")
    func prefix() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("opt/share/audiosession/policy-rules/10.conf", "")
        try root.write("opt/bin/audiosessiond", "")
        #expect(RuleLocations.shippedDirectory(environment: [:], executablePath: root.path + "/opt/bin/audiosessiond")
            == URL(fileURLWithPath: root.path).resolvingSymlinksInPath().path + "/opt/share/audiosession/policy-rules")
    }

    @Test("otherwise the installed directory")
    func installed() {
        #expect(RuleLocations.shippedDirectory(environment: [:], executablePath: "/nonexistent/bin/audiosessiond") == "/usr/share/audiosession/policy-rules")
    }

    @Test("the user directory follows XDG_CONFIG_HOME, else ~/.config")
    func userDirectory() {
        #expect(RuleLocations.userDirectory(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/u"]) == "/cfg/audiosession/policy-rules.d")
        #expect(RuleLocations.userDirectory(environment: ["HOME": "/home/u"]) == "/home/u/.config/audiosession/policy-rules.d")
        #expect(RuleLocations.userDirectory(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"]) == "/home/u/.config/audiosession/policy-rules.d")
        #expect(RuleLocations.userDirectory(environment: [:]) == nil)
    }

    @Test("standard order: shipped, /etc, user, then --rules directories")
    func standardOrder() {
        let locations = RuleLocations.standard(environment: ["AUDIOSESSION_RULES_DIR": "/s", "HOME": "/h"], executablePath: nil, extra: ["/e1", "/e2"])
        #expect(locations.directories == ["/s", "/etc/audiosession/policy-rules.d", "/h/.config/audiosession/policy-rules.d", "/e1", "/e2"])
    }
}

@Suite("Live rules: a reload swaps the whole set or keeps the old one")
struct LiveRulesTests {
    @Test("a valid edit is swapped in; a broken edit keeps the previous set and says why")
    func reload() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("shipped/10.conf", "audiosession.settings = { duck.level = 0.1 }")
        let loader = RuleSetLoader(locations: RuleLocations(shipped: root.path + "/shipped", system: root.path + "/etc", user: root.path + "/user"))
        let live = try LiveRules(loader: loader)
        #expect(live.ruleSet.configuration.duckLevel == 0.1)
        #expect(live.current.reading.reads == 1 && live.current.reading.outcome == .loaded)

        try root.write("user/50.conf", "audiosession.settings = { duck.level = 0.4 }")
        let reloaded = live.reload(because: "SIGHUP")
        #expect(reloaded.reading.outcome == .reloaded && reloaded.reading.reason == "SIGHUP" && reloaded.reading.reads == 2)
        #expect(live.ruleSet.configuration.duckLevel == 0.4)

        #expect(live.reload().reading.outcome == .unchanged)
        #expect(live.current.reading.reads == 3)

        try root.write("user/50.conf", "audiosession.settings = { duck.level = 0.6 ")
        let failed = live.reload(because: "a rules file changed")
        #expect(failed.reading.outcome == .failed)
        #expect(live.ruleSet.configuration.duckLevel == 0.4)
        #expect(live.current.reading.error?.diagnostics.first?.file == root.path + "/user/50.conf")

        try root.write("user/50.conf", "audiosession.settings = { duck.level = 0.6 }")
        live.reload()
        #expect(live.ruleSet.configuration.duckLevel == 0.6)
        #expect(live.current.reading.error == nil && live.current.reading.outcome == .reloaded)
    }

    @Test("the daemon cannot start without a valid set")
    func initialLoadMustSucceed() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("shipped/10.conf", "audiosession.bogus = 1")
        #expect(throws: RulesError.self) {
            _ = try LiveRules(loader: RuleSetLoader(locations: RuleLocations(shipped: root.path + "/shipped", user: nil)))
        }
    }
}

@Suite("Live rules under concurrent reloads")
struct ConcurrentReloadTests {
    @Test("reloads from many tasks at once all succeed and each is counted")
    func concurrentReloads() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("shipped/10.conf", "audiosession.settings = { duck.level = 0.1 }")
        let live = try LiveRules(loader: RuleSetLoader(locations: RuleLocations(shipped: root.path + "/shipped", user: nil)))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { live.reload() } }
        }
        #expect(live.current.reading.reads == 17)
        #expect(live.ruleSet.configuration.duckLevel == 0.1)
    }
}
