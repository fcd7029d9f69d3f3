#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SessionPolicy

/// Record permission per app (reference §8), remembered across restarts in the daemon's state
/// directory (`record-permissions.json`) and fed to the engine at start.
///
/// Only decided answers are stored: `reset` forgets an app, which makes it `undetermined` again.
struct PermissionStore {
    let file: URL
    private(set) var permissions: [String: RecordPermission] = [:]

    private struct Stored: Codable {
        var version = 1
        var apps: [String: String]
    }

    /// Loads the store; a missing file is an empty store, an unreadable one is reported and
    /// treated as empty (the daemon must start even if the file was damaged).
    init(directory: URL, problem: (String) -> Void = { _ in }) {
        file = directory.appendingPathComponent("record-permissions.json")
        guard let data = try? Data(contentsOf: file) else { return }
        do {
            let stored = try JSONDecoder().decode(Stored.self, from: data)
            for (app, name) in stored.apps {
                guard let permission = RecordPermission(wireName: name) else {
                    problem("\(file.path): unknown permission '\(name)' for '\(app)', ignored")
                    continue
                }
                permissions[app] = permission
            }
        } catch {
            problem("\(file.path) is not valid (\(error)); starting with no remembered permissions")
        }
    }

    func permission(for app: String) -> RecordPermission { permissions[app] ?? .undetermined }

    /// Remembers (or, for `undetermined`, forgets) an app's permission and writes the file.
    mutating func set(_ permission: RecordPermission, for app: String) throws {
        permissions[app] = permission == .undetermined ? nil : permission
        let stored = Stored(apps: permissions.mapValues(\.wireName))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(stored).write(to: file, options: .atomic)
    }
}
