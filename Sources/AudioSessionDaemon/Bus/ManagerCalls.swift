#if canImport(FoundationEssentials)
import AppProcesses
import FoundationEssentials
#else
import Foundation
#endif
import PolicyRules
import SessionBus
import SessionPolicy

/// `org.audiosession.Manager1` methods. Loop thread.
extension SessionService {
    func handleManagerCall(_ call: BusCall) {
        let arguments = call.arguments
        switch call.member {
        case "CreateSession":
            createSession(call, app: arguments[0].stringValue ?? "")
        case "ListSessions":
            let sessions = coordinator.sessionSnapshots.map(listing)
            call.reply([.array(element: "a{sv}", sessions)])
        case "SetSilentMode":
            guard requireUser(call) else { return }
            let on = arguments[0].boolValue ?? false
            silentMode = on
            coordinator.setSilentMode(on)
            refresh()
            call.reply()
        case "SetRecordPermission":
            guard requireUser(call) else { return }
            let app = arguments[0].stringValue ?? ""
            guard Self.isValidAppName(app) else { return call.fail(WireValues.error(.badParam, "invalid app name")) }
            guard let permission = RecordPermission(wireName: arguments[1].stringValue ?? "") else {
                return call.fail(WireValues.error(.badParam, "permission must be granted, denied or undetermined"))
            }
            setRecordPermission(permission, for: app, call: call)
        case "GetRecordPermission":
            let app = arguments[0].stringValue ?? ""
            call.reply([.string(coordinator.engine.recordPermission(for: app).wireName)])
        case "ListRecordPermissions":
            let entries = permissions.permissions.sorted { $0.key < $1.key }.map {
                BusValue.dictEntry(key: .string($0.key), value: .string($0.value.wireName))
            }
            call.reply([.array(element: "{ss}", entries)])
        default:
            call.fail(.failed("unknown method \(call.member)"))
        }
    }

    private func createSession(_ call: BusCall, app requested: String) {
        let app = requested.isEmpty ? Self.processName(of: call.caller.pid) : requested
        guard Self.isValidAppName(app) else {
            return call.fail(WireValues.error(.badParam, "the app name must be 1-255 printable characters"))
        }
        let owned = coordinator.explicitSessions.values.filter { $0.owner.uniqueName == call.caller.uniqueName }.count
        guard owned < Self.maxSessionsPerPeer else {
            return call.fail(WireValues.error(.resourceNotAvailable, "a connection may hold at most \(Self.maxSessionsPerPeer) sessions"))
        }
        let pid = Int32(bitPattern: call.caller.pid)
        // What its process vouches for, never what it says: its sandbox, its app unit, its program.
        let facts = pid > 1 ? AppFacts.reading(process: pid) : AppFacts(connection: 0)
        let owner = SessionOwner(
            uniqueName: call.caller.uniqueName, pid: pid, uid: call.caller.uid, sandboxAppID: facts.sandboxAppID,
            appID: AppIdentity(facts).appID)
        let id = coordinator.createExplicitSession(app: app, owner: owner)
        guard let values = sessionProperties(id) else {
            coordinator.removeExplicitSession(id)
            return call.fail(WireValues.error(.unspecified, "the engine refused the session"))
        }
        let path = SessionAPI.sessionPath(id.rawValue)
        do {
            sessionObjects[id] = try bus.export(
                path: path, interfaces: [SessionAPI.session], properties: [SessionAPI.sessionInterface: values]
            ) { [weak self] call in self?.receive(call) }  // the manager's road, in the peer's turn
        } catch {
            coordinator.removeExplicitSession(id)
            return call.fail(WireValues.error(.unspecified, "cannot export \(path): \(error.message)"))
        }
        // Same connection, same FIFO: the object is live before the caller sees its path.
        call.reply([.objectPath(path)])
    }

    func setRecordPermission(_ permission: RecordPermission, for app: String, call: BusCall?) {
        do {
            try permissions.set(permission, for: app)
        } catch {
            logger.error("cannot save record permissions to \(permissions.file.path): \(error)")
            call?.fail(WireValues.error(.unspecified, "cannot save the permission: \(error.fileSystemReason)"))
            return
        }
        coordinator.setRecordPermission(permission, for: app)
        if permission != .undetermined, let waiting = pendingPermissionRequests.removeValue(forKey: app) {
            for request in waiting { request.call.reply([.bool(permission == .granted)]) }
        }
        refresh()  // before the reply: a caller reading RecordPermission next sees the new value
        call?.reply()
    }

    /// Silent mode and permissions belong to the user the daemon runs for.
    /// Settings that change other apps' audio or permissions: the user's own processes only,
    /// never another uid's, never a sandboxed app's (``SessionOwnership/mayChangeSettings(_:)``).
    private func requireUser(_ call: BusCall) -> Bool {
        guard call.caller.uid == userID else {
            call.fail(WireValues.error(.missingEntitlement, "only uid \(userID) may change this"))
            return false
        }
        let pid = Int32(bitPattern: call.caller.pid)
        let caller = SessionOwnership.Owner(pid: pid, sandboxAppID: FlatpakAppID.of(pid))
        guard SessionOwnership.mayChangeSettings(caller) else {
            call.fail(WireValues.error(.missingEntitlement, "a sandboxed app (\(caller.sandboxAppID ?? "")) may not change this"))
            return false
        }
        return true
    }

    static func isValidAppName(_ app: String) -> Bool {
        !app.isEmpty && app.utf8.count <= 255 && !app.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// `/proc/<pid>/comm`: the app name of a caller that did not give one.
    static func processName(of pid: UInt32) -> String {
        let comm = ProcFile.text("/proc/\(pid)/comm") ?? ""
        let name = comm.trimmingWhitespace()
        return name.isEmpty ? "pid-\(pid)" : name
    }
}
