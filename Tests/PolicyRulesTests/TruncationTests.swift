import Foundation
import Testing
@testable import PolicyRules

@Suite("Every truncation of a shipped file is either valid or reported inside what remains")
struct TruncationTests {
    /// Small files at every byte, large ones at every 5th (the parse is linear, so all
    /// prefixes cost quadratic time).
    @Test("cut at every byte (or every 5th)", arguments: [
        ("10-settings.conf", 1), ("20-classes.conf", 1), ("30-roles.conf", 5), ("40-apps.conf", 5),
    ])
    func everyPrefix(name: String, step: Int) throws {
        let bytes = Array(try String(contentsOfFile: shippedRulesDirectory + "/" + name, encoding: .utf8).utf8)
        var refused = 0
        for length in stride(from: 0, through: bytes.count, by: step) {
            let prefix = String(decoding: bytes[..<length], as: UTF8.self)
            let lineCount = prefix.split(separator: "\n", omittingEmptySubsequences: false).count
            do {
                _ = try RulesFile(path: name, text: prefix)
            } catch {
                refused += 1
                for diagnostic in error.diagnostics {
                    #expect(diagnostic.file == name)
                    #expect((1...max(1, lineCount)).contains(diagnostic.line ?? 0), "cut at \(length): \(diagnostic)")
                }
            }
        }
        // Only cuts that end between complete top-level entries may be valid.
        #expect(refused > bytes.count / step * 8 / 10)
    }
}
