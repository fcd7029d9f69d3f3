#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `audiosessionctl rules check FILE...`: validates files as the daemon would load them.
///
/// Each file is read and checked on its own (syntax, keys, types, names, regexes,
/// category/option pairs), then layered on top of the shipped defaults so that names
/// defined elsewhere (priority classes) resolve as they will in the daemon.
public enum RulesChecker {
    /// Every problem found, in the order of the files given; empty when all are valid.
    /// - Parameter shipped: the shipped defaults directory to layer on (`nil`: check the
    ///   files alone, with only the built-in classes).
    public static func check(paths: [String], shipped: String? = nil) -> [RulesDiagnostic] {
        var files: [RulesFile] = []
        var problems: [RulesDiagnostic] = []
        var base: [RulesFile] = []
        if let shipped {
            do {
                for path in try RuleSetLoader.ruleFiles(in: shipped) where !paths.contains(path) {
                    base.append(try RuleSetLoader.read(path: path))
                }
            } catch {
                problems += error.diagnostics
            }
        }
        for path in paths {
            do {
                files.append(try RuleSetLoader.read(path: path))
            } catch {
                problems += error.diagnostics
            }
        }
        if problems.isEmpty {
            do {
                _ = try RuleSet.build(files: base + files)
            } catch {
                problems += error.diagnostics
            }
        }
        return problems
    }

    /// The report: one `file:line: reason` per problem, or a one-line summary when valid.
    public static func report(_ diagnostics: [RulesDiagnostic], checked paths: [String]) -> String {
        if diagnostics.isEmpty {
            return "\(paths.count) file\(paths.count == 1 ? "" : "s") OK"
        }
        return diagnostics.map(\.description).joined(separator: "\n")
    }

    /// What `audiosessionctl rules check` prints and its exit status (0 valid, 1 any
    /// problem). The shipped directory is layered under the files only when it exists,
    /// so checking works on a machine where audiosession is not installed.
    public static func run(paths: [String], shipped: String?) -> (output: String, exitCode: Int32) {
        var base: String?
        if let shipped {
            var isDirectory = false
            if FileManager.default.fileExists(atPath: shipped, isDirectory: &isDirectory), isDirectory { base = shipped }
        }
        let diagnostics = check(paths: paths, shipped: base)
        return (report(diagnostics, checked: paths), diagnostics.isEmpty ? 0 : 1)
    }
}
