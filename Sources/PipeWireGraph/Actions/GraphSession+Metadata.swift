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

    /// Stops implementing `name`: the object leaves the graph once the binds of it made so far
    /// are answered.
    ///
    /// PipeWire's metadata module reads nothing more from a client that binds an exported
    /// metadata until the exporter has answered a ping for it, and forgets that wait if the
    /// object goes first (`global_unbind` in `module-metadata/metadata.c`, 0.3.65 to 1.6): the
    /// binder is never read again. Our main connection binds what we export (and binds it again
    /// a moment later, ``replayMetadataLater(_:)``); withdrawn within that window, at a hand-over
    /// to WirePlumber, it went deaf for good: 5 runs in 200 of a hand-over test, with the
    /// server's debug log showing the daemon's client busy from then on; a `pw-dump` binding it
    /// then hung the same way, and so can WirePlumber, which binds everything as it arrives: at
    /// the very moment of a hand-over. So: a round trip on the main connection (it comes back
    /// once our binds are answered), then round trips on the export connection until one
    /// passes with no ping (by its answer, every ping the server sent us for a bind has been
    /// answered; a ping during it means a client is binding now), at most
    /// ``exportQuietRounds``; then the object goes. A bind that reaches the server within the
    /// last round trip is still exposed: PipeWire's bug, to be fixed there.
    func withdrawMetadata(named name: String, handingOver keys: Set<String> = []) {
        guard let exported = exportedMetadata.removeValue(forKey: name) else { return }
        // A bind of the replay, made after the round trip, would open the window again.
        metadataReplays.removeValue(forKey: pw_proxy_get_bound_id(exported.proxy))?.cancel()
        sync { [weak self] _ in
            guard let self else { return exported.destroy() }
            self.syncExportUntilQuiet(rounds: Self.exportQuietRounds) { [weak self] in
                self?.handOver(keys, of: exported)
                exported.destroy()
                self?.logger.debug("Withdrew metadata '\(name)'")
            }
        }
    }

    /// Writes the subject-0 entries `keys` of our `exported` object into the other client's
    /// object of the same name, where it lacks them. WirePlumber puts its saved choices into the
    /// first `default` it finds, and while ours is there that is ours: they would go with it.
    private func handOver(_ keys: Set<String>, of exported: ExportedMetadata) {
        let ours = pw_proxy_get_bound_id(exported.proxy)
        guard !keys.isEmpty, let theirs = mirror.metadata[exported.name], theirs.id != ours, let proxy = bound[theirs.id] else { return }
        for entry in exported.contents.entries where entry.subject == 0 && keys.contains(entry.key) && theirs.value(for: entry.key) == nil {
            logger.debug("Handed '\(entry.key)' = \(entry.value) over to metadata \(theirs.id)")
            _ = pws_metadata_set_property(proxy.proxy, 0, entry.key, entry.type, entry.value)
        }
    }

    static let exportQuietRounds = 8

    /// Round trips on the export connection until one brings no ping, or `rounds` are done.
    private func syncExportUntilQuiet(rounds: Int, _ done: @escaping () -> Void) {
        let pings = exportPings
        syncExport { [weak self] in
            guard let self, self.exportPings != pings, rounds > 1, self.exportCore != nil else { return done() }
            self.syncExportUntilQuiet(rounds: rounds - 1, done)
        }
    }

    /// Calls `done` once the server has answered everything sent on the export connection
    /// before, and we have handled what it sent there (pings among it); at once without one.
    func syncExport(_ done: @escaping () -> Void) {
        if !exportRoundTrips.ask(exportCore, { _ in done() }) { done() }
    }

    func exportCoreDone(id: UInt32, seq: Int32) {
        let handler = exportRoundTrips.answered(id: id, seq: seq)
        handler?(true)
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
        // Withdrawals waiting for a round trip: the connection goes, and their objects with it.
        for handler in exportRoundTrips.abandonAll() { handler(false) }
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
