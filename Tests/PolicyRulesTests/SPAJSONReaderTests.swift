import Testing
@testable import PolicyRules

@Suite("Reading SPA-JSON with libspa's tokenizer")
struct SPAJSONReaderTests {
    @Test("a top level without braces, = and : separators, # comments, optional commas")
    func relaxedSyntax() throws {
        let document = try SPAJSONReader.read("""
            # comment
            a = 1
            b: "two"   # trailing comment
            c = [ x, y z ]
            d = { e = true f = null }
            """, file: "f.conf")
        let members = try #require(document.members)
        #expect(members.map(\.key) == ["a", "b", "c", "d"])
        #expect(members.map(\.line) == [2, 3, 4, 5])
        #expect(members[0].value.integer == 1)
        #expect(members[1].value.kind == .string("two"))
        #expect(members[2].value.elements?.compactMap(\.text) == ["x", "y", "z"])
        let inner = try #require(members[3].value.members)
        #expect(inner[0].value.bool == true)
        #expect(inner[1].value.isNull)
    }

    @Test("a top level with braces")
    func bracedTopLevel() throws {
        let document = try SPAJSONReader.read("{ a = 1 }\n", file: "f.conf")
        #expect(document.members?.first?.key == "a")
    }

    @Test("an empty file and a file of comments are empty objects")
    func emptyFile() throws {
        #expect(try SPAJSONReader.read("", file: "f").members == [])
        #expect(try SPAJSONReader.read("# nothing\n\n", file: "f").members == [])
    }

    @Test("quoted strings are unescaped; quoted null is a string, bare null is null")
    func stringsAndNull() throws {
        let members = try #require(try SPAJSONReader.read(#"a = "x\"y\\z\n" b = "null" c = null"#, file: "f").members)
        #expect(members[0].value.kind == .string("x\"y\\z\n"))
        #expect(members[1].value.kind == .string("null"))
        #expect(!members[1].value.isNull)
        #expect(members[2].value.isNull)
    }

    @Test("numbers as libspa reads them")
    func numbers() throws {
        #expect(SPAJSONReader.isNumber("-0.5"))
        #expect(SPAJSONReader.isNumber("1e3"))
        #expect(!SPAJSONReader.isNumber("inf"))
        #expect(!SPAJSONReader.isNumber("12dB"))
        #expect(!SPAJSONReader.isNumber(""))
    }

    @Test("errors carry the line", arguments: [
        ("a = {\n  b = 1\n", "f:2: unexpected end of file: '{' opened on line 1 is never closed"),
        ("a = [ 1\n 2 }\n", "f:2: expected ']' to close '[' from line 1, found '}'"),
        ("a = 1\n}\n", "f:2: unexpected '}' with no matching opening bracket"),
        ("a = 1\nb\n", "f:2: key 'b' has no value"),
        ("a = \"abc\ndef\"\n", "f:1: string not closed before the end of the line"),
        ("a = \"x\\qy\"\n", "f:1: invalid escape '\\q' in a string"),
        ("a = 1\n{ b = 1 } = 2\n", "f:2: expected a key, found an object"),
        ("{ a = 1 }\nb = 2\n", "f:2: unexpected content after the closing '}' of the file"),
        ("a = \"abc", "f:1: string not closed before the end of the file"),
        ("a = [ \"abc", "f:1: string not closed before the end of the file"),
        ("a = [ 1", "f:1: unexpected end of file: '[' opened on line 1 is never closed"),
    ])
    func syntaxErrors(text: String, expected: String) {
        #expect(throws: RulesDiagnostic.self) { try SPAJSONReader.read(text, file: "f") }
        do {
            _ = try SPAJSONReader.read(text, file: "f")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test("nesting is bounded")
    func deepNesting() {
        let text = "a = " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        do {
            _ = try SPAJSONReader.read(text, file: "f")
            Issue.record("deep nesting was accepted")
        } catch {
            #expect(error.reason == "nesting deeper than 64 levels")
        }
    }

    @Test("line numbers from byte offsets")
    func lineTable() {
        let table = LineTable(Array("a\nbc\n\nd".utf8))
        #expect(table.line(at: 0) == 1)
        #expect(table.line(at: 1) == 1)
        #expect(table.line(at: 2) == 2)
        #expect(table.line(at: 5) == 3)
        #expect(table.line(at: 6) == 4)
    }

    @Test("invalid UTF-8 inside a string is reported with its line")
    func invalidUTF8() {
        let bytes = Array("a = 1\nb = \"x".utf8) + [0xC3, 0x28] + Array("\"\n".utf8)
        do {
            _ = try SPAJSONReader.read(bytes: bytes, file: "f")
            Issue.record("invalid UTF-8 was accepted")
        } catch {
            #expect(error.description == "f:2: invalid UTF-8 in a string")
        }
    }
}
