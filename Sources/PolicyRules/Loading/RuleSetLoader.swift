#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads every `*.conf` of the rule directories (each directory's files in byte order of
/// their names, as PipeWire orders `*.conf.d`) and builds one `RuleSet`, or throws every
/// problem found. Missing override directories are normal; a missing shipped one is not.
public struct RuleSetLoader: Hashable, Sendable {
    public var locations: RuleLocations

    public init(locations: RuleLocations) {
        self.locations = locations
    }

    /// The files that make up the rule set, lowest precedence first.
    public func ruleFiles() throws(RulesError) -> [String] {
        var paths: [String] = []
        var problems: [RulesDiagnostic] = []
        for directory in locations.directories {
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
                if directory == locations.shipped {
                    problems.append(RulesDiagnostic(file: directory, line: nil,
                        reason: "shipped rules directory not found (set \(RuleLocations.shippedDirectoryVariable))"))
                }
                continue
            }
            guard isDirectory else {
                problems.append(RulesDiagnostic(file: directory, line: nil, reason: "not a directory"))
                continue
            }
            do {
                paths += try Self.ruleFiles(in: directory)
            } catch {
                problems += error.diagnostics
            }
        }
        guard problems.isEmpty else { throw RulesError(problems) }
        return paths
    }

    /// The `*.conf` files of one directory, in the order they layer.
    public static func ruleFiles(in directory: String) throws(RulesError) -> [String] {
        do {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            return ruleFileNames(names).map { directory + "/" + $0 }
        } catch {
            throw RulesError([RulesDiagnostic(file: directory, line: nil, reason: "cannot list: \(error.fileSystemReason)")])
        }
    }

    /// `*.conf`, not hidden (editor swap files, `.#foo.conf`), sorted by their bytes.
    static func ruleFileNames(_ names: [String]) -> [String] {
        names.filter { $0.hasSuffix(".conf") && !$0.hasPrefix(".") }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// Loads the whole rule set; throws every problem of every file.
    public func load() throws(RulesError) -> RuleSet {
        try Self.load(paths: try ruleFiles())
    }

    /// Reads and layers the given files (lowest precedence first).
    public static func load(paths: [String]) throws(RulesError) -> RuleSet {
        var files: [RulesFile] = []
        var problems: [RulesDiagnostic] = []
        for path in paths {
            do {
                files.append(try read(path: path))
            } catch {
                problems += error.diagnostics
            }
        }
        guard problems.isEmpty else { throw RulesError(problems) }
        return try RuleSet.build(files: files)
    }

    /// Reads and checks one file on its own.
    public static func read(path: String) throws(RulesError) -> RulesFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot read the file" : "no such file"
            throw RulesError([RulesDiagnostic(file: path, line: nil, reason: reason)])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw RulesError([RulesDiagnostic(file: path, line: nil, reason: "not UTF-8 text")])
        }
        return try RulesFile(path: path, text: text)
    }
}
