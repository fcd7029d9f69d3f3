import Foundation
import Testing

/// A new machine has only the Swift toolchain: every program the tests, the demo and the
/// sandbox start must come from a package that the project's own install scripts install.
/// (A test once called `soxi`, which nothing installed: CI on the developer's machine, where
/// sox happened to be, could not see it.)
@Suite("Every program the tests call is installed by the project's scripts")
struct FreshMachineTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The packages the install scripts list (their PACKAGES arrays).
    static func installedByScripts() throws -> Set<String> {
        var packages: Set<String> = []
        for script in ["install-deps.sh", "install-apps.sh", "install-browsers.sh"] {
            let text = try String(contentsOf: root.appendingPathComponent("scripts/\(script)"), encoding: .utf8)
            guard let start = text.range(of: "PACKAGES=("), let end = text[start.upperBound...].range(of: "\n)") else { continue }
            for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
                let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                packages.formUnion(code.split(whereSeparator: \.isWhitespace).map(String.init))
            }
        }
        return packages
    }

    /// Program names started by string literal in the tests, the sandbox and the demo.
    static func programsCalled() throws -> Set<String> {
        let patterns = [
            #"spawn\(\s*"([^"/][^"]*|/[^"]+)""#, #"\brun\(\s*"([^"]+)""#, #"ManagedProcess\(\s*"([^"]+)""#,
            #"executable: "([^"]+)""#, #"ManagedProcess\.run\(\s*"([^"]+)""#,
        ].map { try! NSRegularExpression(pattern: $0) }
        var names: Set<String> = []
        for folder in ["Tests", "Sources/PipeWireSandbox", "Sources/AudioSessionControl"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let file = enumerator?.nextObject() as? URL {
                guard file.pathExtension == "swift", file.lastPathComponent != "FreshMachineTests.swift",
                    let text = try? String(contentsOf: file, encoding: .utf8)
                else { continue }
                for pattern in patterns {
                    for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                        guard let range = Range(match.range(at: 1), in: text) else { continue }
                        names.insert(String(text[range]))
                    }
                }
            }
        }
        return names.filter { !$0.contains("\\(") && !$0.isEmpty }
    }

    static func shell(_ command: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The Debian package that owns a program (its real path, after links and alternatives;
    /// Debian 12 merges /bin into /usr/bin, while packages still list /bin).
    static func package(of program: String) -> String? {
        let path = program.hasPrefix("/") ? program : shell("/usr/bin/which", [program])
        guard let path, let real = shell("/usr/bin/realpath", [path]) else { return nil }
        let candidates = [real, real.replacingOccurrences(of: "/usr/bin/", with: "/bin/")]
        guard let owner = candidates.lazy.compactMap({ shell("/usr/bin/dpkg", ["-S", $0]) }).first else { return nil }
        return owner.split(separator: ":").first.map { String($0.split(separator: ",").first ?? "") }
    }

    /// The listed packages and what they pull in (their dependencies, recursively): installing
    /// the list installs all of these.
    static func closure(of listed: Set<String>) -> Set<String> {
        // Every installed package's dependencies, read once.
        var dependencies: [String: [String]] = [:]
        let table = shell("/usr/bin/dpkg-query", ["-W", "-f=${Package}\t${Depends}, ${Pre-Depends}\n"]) ?? ""
        for line in table.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2 else { continue }
            // "a (>= 1) | b, c:any": every alternative's name (lenient: one of them is installed).
            dependencies[String(parts[0]), default: []] += parts[1].split(whereSeparator: { $0 == "," || $0 == "|" }).compactMap {
                $0.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ":" }).first.map(String.init)
            }
        }
        var seen = listed
        var queue = Array(listed)
        while let package = queue.popLast() {
            for name in dependencies[package] ?? [] where seen.insert(name).inserted { queue.append(name) }
        }
        return seen
    }

    /// Programs of packages every Debian system has (Priority: required).
    static func isBase(_ package: String) -> Bool {
        shell("/usr/bin/dpkg-query", ["-W", "-f=${Priority}", package]) == "required"
    }

    @Test func everyProgramComesFromAPackageTheScriptsInstall() throws {
        let listed = Self.closure(of: try Self.installedByScripts())
        let programs = try Self.programsCalled()
        #expect(programs.count >= 20, "the scan found the programs: \(programs.sorted())")
        var unlisted: [String] = []
        for program in programs.sorted() {
            guard let package = Self.package(of: program) else {
                unlisted.append("\(program) (not found on this machine)")
                continue
            }
            if !listed.contains(package) && !Self.isBase(package) { unlisted.append("\(program) (package \(package))") }
        }
        #expect(unlisted.isEmpty, "called but not installed by scripts/install-*.sh: \(unlisted)")
    }
}
