import Foundation
@testable import PolicyRules

/// Builds a rule set from in-memory files named `a.conf`, `b.conf`, ... (lowest first).
func ruleSet(_ texts: String...) throws -> RuleSet {
    var files: [RulesFile] = []
    for (index, text) in texts.enumerated() {
        files.append(try RulesFile(path: "\(Character(UnicodeScalar(UInt8(97 + index)))).conf", text: text))
    }
    return try RuleSet.build(files: files)
}

/// The diagnostics of a set of in-memory files, as `file:line: reason` lines.
func problems(_ texts: String...) -> [String] {
    var files: [RulesFile] = []
    var found: [String] = []
    for (index, text) in texts.enumerated() {
        do {
            files.append(try RulesFile(path: "\(Character(UnicodeScalar(UInt8(97 + index)))).conf", text: text))
        } catch {
            found += error.diagnostics.map(\.description)
        }
    }
    guard found.isEmpty else { return found }
    do {
        _ = try RuleSet.build(files: files)
        return []
    } catch {
        return error.diagnostics.map(\.description)
    }
}

/// A fresh directory under the system temp dir, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("policy-rules-test-XXXXXX").path
        var bytes = Array(template.utf8CString)
        guard let result = mkdtemp(&bytes) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: result)
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The repository's shipped `policy-rules/` directory.
let shippedRulesDirectory: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("policy-rules").path
