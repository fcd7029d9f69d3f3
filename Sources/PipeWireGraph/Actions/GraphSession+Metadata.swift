import CPipeWire
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PipeWireShim

/// Metadata actions, and the metadata objects this process implements.
extension GraphSession {
    func setMetadata(_ name: String, subject: GlobalID, key: String, type: String?, value: String?) {
        guard let id = mirror.metadata[name]?.id, let proxy = bound[id] else {
            logger.warning("setMetadata: no metadata named '\(name)'")
            return
        }
        _ = pws_metadata_set_property(proxy.proxy, subject, key, type, value)
    }

    /// Exports `name` now if connected. Not after a reconnect by itself: whoever provides it
    /// decides again once the new graph is known (another client may provide it there).
    func provideMetadata(named name: String) {
        if core != nil { exportMetadata(named: name) }
    }

    /// Stops implementing `name`: the object leaves the graph.
    func withdrawMetadata(named name: String) {
        guard let exported = exportedMetadata.removeValue(forKey: name) else { return }
        exported.destroy()
        logger.debug("Withdrew metadata '\(name)'")
    }

    /// Implements a metadata object in this process, exported on the second ("export")
    /// connection so that binding it back on the main one cannot deadlock (pitfall 1).
    func exportMetadata(named name: String) {
        guard exportedMetadata[name] == nil, let exportCore = connectExportCore() else { return }
        var implementation: UnsafeMutableRawPointer?
        guard let proxy = pws_export_metadata(pw_core_get_context(exportCore), exportCore, name, &implementation),
            let implementation
        else {
            logger.error("Could not export metadata '\(name)'")
            return
        }
        exportedMetadata[name] = ExportedMetadata(name: name, proxy: proxy, implementation: implementation, session: self)
        logger.debug("Exported metadata '\(name)'")
    }

    /// The second connection, for what we implement (pitfall 1: never bind what you export on
    /// the same connection): exported metadata, level meters.
    func connectExportCore() -> OpaquePointer? {
        if let exportCore { return exportCore }
        guard let main = core else { return nil }
        var properties: [String: String] = [:]
        if let remote = configuration.remote { properties["remote.name"] = remote }
        guard let exportCore = pw_context_connect(pw_core_get_context(main), Self.makeProperties(properties), 0) else {
            logger.error("Could not open the export connection: \(String(cString: strerror(errno)))")
            return nil
        }
        let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
        hook.initialize(to: spa_hook())
        _ = pws_core_add_listener(exportCore, hook, EventTables.exportCore, Unmanaged.passUnretained(self).toOpaque())
        self.exportCore = exportCore
        exportCoreHook = hook
        return exportCore
    }

    func exportCoreError(id: UInt32, result: Int32, message: String) {
        logger.debug("Export connection error on \(id): \(message) (\(result))")
        // A dead export connection means a dead daemon: the main connection handles it.
    }

    func tearDownExports() {
        destroyMeters()
        for exported in exportedMetadata.values { exported.destroy() }
        exportedMetadata = [:]
        if let exportCore {
            if let exportCoreHook { detachHook(exportCoreHook) }
            pw_core_disconnect(exportCore)
        }
        exportCore = nil
        exportCoreHook?.deallocate()
        exportCoreHook = nil
    }
}
