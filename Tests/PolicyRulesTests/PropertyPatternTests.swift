import CPipeWire
import Testing
@testable import PolicyRules

/// Parses `key = <pattern>` and returns the pattern.
private func pattern(_ written: String) throws -> PropertyPattern {
    let document = try SPAJSONReader.read("k = \(written)", file: "p")
    return try PropertyPattern(try #require(document.members?.first?.value))
}

@Suite("Match patterns mean what they mean to PipeWire")
struct PropertyPatternTests {
    @Test("the semantics table of pw_conf_find_match (PipeWire 1.x)", arguments: [
        // written, property value (nil = absent), matches
        ("Music", "Music", true), ("Music", "music", false), ("Music", "Musicx", false), ("Music", nil, false),
        (#""Music""#, "Music", true),
        (#""~^Mus""#, "Music", true), (#""~^Mus""#, "xMusic", false), (#""~Mus""#, "xMusicx", true),
        (#""~Mus""#, nil, false), (#""~^(a|b)$""#, "b", true), (#""~^(a|b)$""#, "ab", false),
        ("null", nil, true), ("null", "x", false),
        (#""null""#, "null", true), (#""null""#, nil, false),
        ("!Music", "Game", true), ("!Music", "Music", false), ("!Music", nil, true),
        (#""!Music""#, "Game", true), (#""!~^Mus""#, "Music", false), (#""!~^Mus""#, "Game", true),
        (#""!~^Mus""#, nil, true),
        ("!null", "x", true), ("!null", nil, false), (#""!null""#, "x", true), (#""!null""#, nil, false),
        (#"!"null""#, "null", false), (#"!"null""#, "x", true), (#"!"null""#, nil, true),
        ("~null", nil, true),
    ] as [(String, String?, Bool)])
    func semantics(written: String, value: String?, expected: Bool) throws {
        #expect(try pattern(written).matches(value) == expected)
    }

    @Test("patterns print back in rules syntax")
    func description() throws {
        #expect(try pattern("Music").description == #""Music""#)
        #expect(try pattern(#""!~^a""#).description == #""!~^a""#)
        #expect(try pattern("null").description == "null")
        #expect(try pattern("!null").description == "!null")
    }

    @Test("an invalid regex is refused with regerror's message")
    func invalidRegex() throws {
        #expect(throws: PatternError.self) { try pattern(#""~Mu(""#) }
        do {
            _ = try pattern(#""~Mu(""#)
        } catch let error as PatternError {
            #expect(error.reason.hasPrefix("invalid regex 'Mu(': "))
            #expect(error.reason.contains("("))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// glibc's regcomp copies a repeated expression per counted repetition, and repetitions of
    /// repetitions multiply: the fuzzer found `a` followed by 52 `+` taking over 2 GiB. Such a
    /// pattern is a diagnostic, at once; the patterns people write still compile.
    @Test("a pattern that would blow up regcomp is refused at once", arguments: [
        "a" + String(repeating: "+", count: 52), "((a{100}){100}){100}", "(a+)+(b+)+(c+)+(d+)+(e+)+(f+)+(g+)+(h+)+(i+)+(j+)+(k+)+(l+)+(m+)+(n+)+" + String(repeating: "+", count: 12),
        "x{20000}", "(ab{50}){300}",
    ])
    func explosiveRegex(_ written: String) throws {
        let started = ContinuousClock.now
        do {
            _ = try pattern("\"~\(written)\"")
            Issue.record("\(written) was accepted")
        } catch let error as PatternError {
            #expect(error.reason.contains("too complex"), "\(error.reason)")
        }
        #expect(ContinuousClock.now - started < .seconds(1), "refused before regcomp, not after")
    }

    @Test("patterns people write compile", arguments: [
        #"^(firefox|chromium|epiphany)$"#, #".*\\.(mp3|ogg)$"#, "a{2,3}b+c*d?", "[[:alpha:]]+-[0-9]{1,4}", #"^alsa_output\\..*\\.analog-stereo$"#,
        "(a|b|c)+(d{2}){5}", String(repeating: "x", count: 2000),
    ])
    func ordinaryRegex(_ written: String) throws {
        _ = try pattern("\"~\(written)\"")
        #expect(RegexComplexity.size(of: written) < 3_000)
    }

    @Test("containers are not patterns")
    func containers() throws {
        #expect(throws: PatternError.notAPattern("an array")) { try pattern("[ a ]") }
    }

    @Test("a clause needs every key; an empty clause never matches")
    func clauses() throws {
        let clause = MatchClause(conditions: [
            .init(key: "a", pattern: try pattern("x"), line: 1),
            .init(key: "b", pattern: try pattern("null"), line: 1),
        ], line: 1)
        #expect(clause.matches(["a": "x"]))
        #expect(!clause.matches(["a": "x", "b": "y"]))
        #expect(!clause.matches([:]))
        #expect(!MatchClause(conditions: [], line: 1).matches([:]))
    }
}

/// libpipewire is initialised once and called from one test at a time.
@Suite("Cross-check with libpipewire 0.3.65", .serialized)
struct LibpipewireAgreementTests {
    init() {
        pw_init(nil, nil)
    }

    /// The patterns 0.3.65 and 1.x agree on (no `!`), checked against the libpipewire
    /// installed here: `pw_conf_match_rules` must say the same as we do.
    @Test("agrees with the installed libpipewire's pw_conf_match_rules", arguments: [
        "Music", #""Music""#, #""~^Mus""#, #""~ic$""#, #""~^(Music|Movie)$""#, "null", #""null""#,
        #""~[[:digit:]]+""#, #""~^a.c$""#, #""~^$""#,
    ])
    func agreesWithLibpipewire(written: String) throws {
        let ours = try pattern(written)
        for value in ["Music", "Movie", "music", "xMusic", "null", "abc", "a1c", "", "123"] as [String?] + [nil] {
            // 0.3.65 compares a bare null's raw text too, so it also matches the string
            // "null"; 1.x (and we) match only an absent property.
            if written == "null" && value == "null" { continue }
            let theirs = libpipewireMatches(pattern: written, value: value)
            #expect(ours.matches(value) == theirs, "pattern \(written) value \(value ?? "<absent>")")
        }
    }

    private func libpipewireMatches(pattern: String, value: String?) -> Bool {
        let rules = "[ { matches = [ { k = \(pattern) } ] actions = { hit = true } } ]"
        var hits: Int32 = 0
        let callback: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int) -> Int32 = { data, _, _, _, _ in
            data!.assumingMemoryBound(to: Int32.self).pointee += 1
            return 0
        }
        "k".withCString { key in
            (value ?? "").withCString { text in
                var item = spa_dict_item(key: key, value: text)
                withUnsafeMutablePointer(to: &item) { itemPointer in
                    var dict = spa_dict(flags: 0, n_items: value == nil ? 0 : 1, items: itemPointer)
                    _ = pw_conf_match_rules(rules, rules.utf8.count, "test", &dict, callback, &hits)
                }
            }
        }
        return hits > 0
    }
}
