import CPipeWire
import PipeWireShim

/// A proxy this connection bound to a global, with its listener hook.
///
/// Loop-thread only. The hook is heap-allocated once (pitfall 5: pointers handed to
/// libpipewire must outlive the call) and removed before the proxy is destroyed.
final class BoundProxy {
    enum Kind { case client, node, link, device, metadata }

    let id: GlobalID
    let kind: Kind
    let proxy: OpaquePointer
    let globalProperties: [String: String]
    /// The global's version, as the registry announced it (a rebind asks for the same).
    let serverVersion: UInt32
    private let hook: UnsafeMutablePointer<spa_hook>
    unowned let session: GraphSession

    /// True once the object was published with an `added` event.
    var published = false
    /// Last seen `spa_param_info.flags` by param id: a changed SERIAL bit means "re-read".
    var paramFlags: [UInt32: UInt32] = [:]
    var subscribedParams: Set<UInt32> = []
    /// Params being enumerated, by param id: the enumeration's seq and what arrived so far.
    var pendingEnumerations: [UInt32: (seq: Int32, params: DeviceParams)] = [:]
    /// EnumFormat replies for `configurePorts`, by seq.
    var pendingFormats: [Int32: [(rate: UInt32, positions: [UInt32])]] = [:]

    init?(
        session: GraphSession, registry: OpaquePointer, id: GlobalID, kind: Kind, serverVersion: UInt32,
        properties: [String: String]
    ) {
        let (type, version) = kind.interface
        guard let proxy = pws_registry_bind(registry, id, type, min(version, serverVersion)) else { return nil }
        self.id = id
        self.kind = kind
        self.proxy = proxy
        self.globalProperties = properties
        self.serverVersion = serverVersion
        self.session = session
        hook = .allocate(capacity: 1)
        hook.initialize(to: spa_hook())
        let data = Unmanaged.passUnretained(self).toOpaque()
        switch kind {
        case .client: _ = pws_client_add_listener(proxy, hook, EventTables.client, data)
        case .node: _ = pws_node_add_listener(proxy, hook, EventTables.node, data)
        case .link: _ = pws_link_add_listener(proxy, hook, EventTables.link, data)
        case .device: _ = pws_device_add_listener(proxy, hook, EventTables.device, data)
        case .metadata: _ = pws_metadata_add_listener(proxy, hook, EventTables.metadata, data)
        }
    }

    /// Removes the listener and destroys the proxy (idempotent through `destroyed`).
    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        detachHook(hook)
        pw_proxy_destroy(proxy)
    }

    private var destroyed = false

    deinit {
        hook.deinitialize(count: 1)
        hook.deallocate()
    }
}

extension BoundProxy.Kind {
    init?(interfaceType type: String) {
        switch type {
        case "PipeWire:Interface:Client": self = .client
        case "PipeWire:Interface:Node": self = .node
        case "PipeWire:Interface:Link": self = .link
        case "PipeWire:Interface:Device": self = .device
        case "PipeWire:Interface:Metadata": self = .metadata
        default: return nil
        }
    }

    var interface: (type: UnsafePointer<CChar>, version: UInt32) {
        switch self {
        case .client: (pws_type_client, pws_version_client)
        case .node: (pws_type_node, pws_version_node)
        case .link: (pws_type_link, pws_version_link)
        case .device: (pws_type_device, pws_version_device)
        case .metadata: (pws_type_metadata, pws_version_metadata)
        }
    }
}

/// A link this connection created: kept alive until its global goes away (the link belongs
/// to our connection and vanishes with it; no `object.linger`). Loop-thread confined.
// Unchecked: bound, told its global and destroyed on the loop thread only (`globalID`,
// `destroyed`); other threads only hold it to hand it back there.
final class OwnedLink: @unchecked Sendable {
    let pair: PortPairing.Pair
    let proxy: OpaquePointer
    private let hook: UnsafeMutablePointer<spa_hook>
    var globalID: GlobalID?
    private var destroyed = false
    unowned let session: GraphSession

    init(session: GraphSession, pair: PortPairing.Pair, proxy: OpaquePointer) {
        self.session = session
        self.pair = pair
        self.proxy = proxy
        hook = .allocate(capacity: 1)
        hook.initialize(to: spa_hook())
        pw_proxy_add_listener(proxy, hook, EventTables.ownedLinkProxy, Unmanaged.passUnretained(self).toOpaque())
    }

    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        detachHook(hook)
        pw_proxy_destroy(proxy)
    }

    deinit {
        hook.deinitialize(count: 1)
        hook.deallocate()
    }
}
