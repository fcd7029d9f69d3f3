import CPipeWire
#if canImport(Glibc)
import Glibc
#endif
import PipeWireShim

/// A second connection to the server for the requests that must leave at once (a call's first
/// link destroys), on a `pw_loop` of its own nested in the graph's, iterated right after each
/// request.
///
/// libpipewire writes a connection's requests on its socket's writable event, after it has
/// handled every message already read (module-protocol-native's `on_remote_data`): the main
/// connection, busy with a new call's stream, its ports and a hundred streams' changes, wrote
/// the call's first destroys only when all of that was handled. This connection reads nothing
/// but what the server says to it, so one turn of its loop writes what was just asked.
///
/// Confined to the graph's loop thread. If it breaks, its owner falls back to the main
/// connection (``isUsable``).
final class UrgentConnection {
    private let mainLoop: UnsafeMutablePointer<pw_loop>
    private let loop: UnsafeMutablePointer<pw_loop>
    private let context: OpaquePointer
    private let core: OpaquePointer
    private let registry: OpaquePointer
    private let coreHook: UnsafeMutablePointer<spa_hook>
    private var nested: UnsafeMutablePointer<spa_source>?
    /// The server closed it: nothing sent on it would arrive.
    private(set) var isBroken = false

    var isUsable: Bool { !isBroken }

    /// Connects to the server the main connection uses; nil when it cannot.
    init?(mainLoop: UnsafeMutablePointer<pw_loop>, properties: [String: String]) {
        guard let loop = pws_loop_new() else { return nil }
        var contextProperties = ["config.name": "client.conf"]
        contextProperties["application.name"] = properties["application.name"]
        guard let context = pw_context_new(loop, GraphSession.makeProperties(contextProperties), 0) else {
            pws_loop_destroy(loop)
            return nil
        }
        guard let core = pw_context_connect(context, GraphSession.makeProperties(properties), 0),
            let registry = pws_core_get_registry(core)
        else {
            pw_context_destroy(context)
            pws_loop_destroy(loop)
            return nil
        }
        self.mainLoop = mainLoop
        self.loop = loop
        self.context = context
        self.core = core
        self.registry = registry
        coreHook = .allocate(capacity: 1)
        coreHook.initialize(to: spa_hook())
        _ = pws_core_add_listener(core, coreHook, EventTables.urgentCore, Unmanaged.passUnretained(self).toOpaque())
        pws_loop_enter(loop)
        // What the server says to this connection is read whenever the main loop sees it.
        nested = pws_loop_add_io(mainLoop, pws_loop_fd(loop), UInt32(SPA_IO_IN), { data, _, _ in
            guard let data else { return }
            Unmanaged<UrgentConnection>.fromOpaque(data).takeUnretainedValue().turn()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Destroys a global now: the request is written before this returns.
    func destroy(_ id: UInt32) {
        _ = pws_registry_destroy(registry, id)
        turn()
    }

    /// One turn of the nested loop: reads what came in, writes what is waiting.
    private func turn() {
        _ = pws_loop_iterate(loop, 0)
    }

    func broke() { isBroken = true }

    /// Disconnects and frees everything (loop thread).
    func close() {
        if let nested { pws_loop_destroy_source(mainLoop, nested) }
        nested = nil
        detachHook(coreHook)
        coreHook.deallocate()
        pw_proxy_destroy(registry)
        pw_core_disconnect(core)
        pws_loop_leave(loop)
        pw_context_destroy(context)
        pws_loop_destroy(loop)
    }
}
