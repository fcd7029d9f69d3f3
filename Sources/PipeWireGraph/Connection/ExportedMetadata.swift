import CPipeWire
import PipeWireShim

/// A metadata object this process implements: the export proxy, the implementation, and a
/// listener on the implementation itself. PipeWire 0.3.65 does not always forward another
/// client's change of an exported metadata to our own bound proxy (`pactl set-default-sink`
/// into the `default` metadata we provide was missed about one time in four); the
/// implementation sees every change, whoever makes it.
final class ExportedMetadata {
    let name: String
    let proxy: OpaquePointer
    let implementation: UnsafeMutableRawPointer
    private let watch: UnsafeMutablePointer<pws_metadata_watch>
    /// Confined to the loop thread, like the session it reports to.
    unowned let session: GraphSession
    /// What the object holds now, as its implementation saw every change: the mirror may show
    /// another client's object of the same name instead.
    private(set) var contents: Metadata

    init(name: String, proxy: OpaquePointer, implementation: UnsafeMutableRawPointer, session: GraphSession) {
        self.name = name
        self.proxy = proxy
        self.implementation = implementation
        self.session = session
        contents = Metadata(id: 0, name: name)
        watch = .allocate(capacity: 1)
        watch.initialize(to: pws_metadata_watch())
        watch.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        watch.pointee.property = { data, subject, key, type, value in
            guard let data else { return }
            let exported = Unmanaged<ExportedMetadata>.fromOpaque(data).takeUnretainedValue()
            exported.contents.apply(
                subject: subject, key: String(optionalCString: key), type: String(optionalCString: type),
                value: String(optionalCString: value))
            exported.session.implementedMetadataProperty(
                exported.name, id: pw_proxy_get_bound_id(exported.proxy), subject: subject, key: String(optionalCString: key), type: String(optionalCString: type),
                value: String(optionalCString: value))
        }
        pws_exported_metadata_listen(implementation, watch)
    }

    /// Stops listening, takes the object out of the graph and frees it.
    func destroy() {
        spa_hook_remove(&watch.pointee.hook)
        pw_proxy_destroy(proxy)
        pws_exported_metadata_destroy(implementation)
        watch.deinitialize(count: 1)
        watch.deallocate()
    }
}
