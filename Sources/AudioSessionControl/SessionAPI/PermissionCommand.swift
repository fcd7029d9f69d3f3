import ArgumentParser
import AudioSession

/// `audiosessionctl permission grant|deny|reset APP`: the remembered record permission.
struct PermissionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "permission",
        abstract: "Grant, deny or reset an app's record permission (a denied app records silence).",
        discussion: """
            APP is the app name sessions are kept under: a sandboxed (Flatpak) app's id, else the name an app gave \
            when it created its session, \
            or for other apps the name rules see (application.name, else the binary). \
            'list' shows the remembered answers.
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable { case grant, deny, reset, list }

    @Argument(help: "grant, deny, reset or list.")
    var action: Action

    @Argument(help: "The app.")
    var app: String?

    @OptionGroup var connection: DaemonConnectionOptions

    func validate() throws {
        if action != .list, app?.isEmpty ?? true { throw ValidationError("'\(action.rawValue)' needs an APP") }
    }

    func run() async throws {
        try await reportingDaemonProblems {
            let manager = try connection.manager()
            defer { manager.close() }
            let permission: RecordPermission
            switch action {
            case .list:
                let all = try await manager.recordPermissions()
                if all.isEmpty { print("no remembered permissions") }
                for (app, permission) in all.sorted(by: { $0.key < $1.key }) { print("\(app)\t\(permission.wireName)") }
                return
            case .grant: permission = .granted
            case .deny: permission = .denied
            case .reset: permission = .undetermined
            }
            try await manager.setRecordPermission(permission, for: app ?? "")
            print("\(app ?? ""): \(permission.wireName)")
        }
    }
}
