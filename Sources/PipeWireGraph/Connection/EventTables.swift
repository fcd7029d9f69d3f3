import CPipeWire
import PipeWireShim

/// The C event tables libpipewire calls into, allocated once for the process lifetime.
/// Each forwards to the Swift object passed as listener `data` (loop thread only).
enum EventTables {
    nonisolated(unsafe) static let core: UnsafeMutablePointer<pw_core_events> = make { events in
        events.version = UInt32(PW_VERSION_CORE_EVENTS)
        events.info = { data, info in
            guard let info, let version = info.pointee.version else { return }
            session(data).coreInfo(version: String(cString: version))
        }
        events.done = { data, id, seq in session(data).coreDone(id: id, seq: seq) }
        events.error = { data, id, seq, res, message in
            session(data).coreError(id: id, seq: seq, result: res, message: String(optionalCString: message) ?? "")
        }
    }

    /// The export connection: its round trips (``GraphSession/syncExport(_:)``), the server's
    /// pings for binds of what we export, and that it died.
    nonisolated(unsafe) static let exportCore: UnsafeMutablePointer<pw_core_events> = make { events in
        events.version = UInt32(PW_VERSION_CORE_EVENTS)
        events.done = { data, id, seq in session(data).exportCoreDone(id: id, seq: seq) }
        // A client binds something we export (libpipewire answers the ping itself).
        events.ping = { data, _, _ in session(data).exportPings &+= 1 }
        events.error = { data, id, _, res, message in
            session(data).exportCoreError(id: id, result: res, message: String(optionalCString: message) ?? "")
        }
    }

    nonisolated(unsafe) static let registry: UnsafeMutablePointer<pw_registry_events> = make { events in
        events.version = UInt32(PW_VERSION_REGISTRY_EVENTS)
        events.global = { data, id, _, type, version, props in
            guard let type else { return }
            session(data).registryGlobal(
                id: id, type: String(cString: type), version: version, properties: [String: String](spaDict: props))
        }
        events.global_remove = { data, id in session(data).registryGlobalRemove(id: id) }
    }

    nonisolated(unsafe) static let client: UnsafeMutablePointer<pw_client_events> = make { events in
        events.version = UInt32(PW_VERSION_CLIENT_EVENTS)
        events.info = { data, info in
            guard let info else { return }
            let proxy = bound(data)
            proxy.session.clientInfo(proxy, info.pointee)
        }
    }

    nonisolated(unsafe) static let node: UnsafeMutablePointer<pw_node_events> = make { events in
        events.version = UInt32(PW_VERSION_NODE_EVENTS)
        events.info = { data, info in
            guard let info else { return }
            let proxy = bound(data)
            proxy.session.nodeInfo(proxy, info.pointee)
        }
        events.param = { data, seq, id, _, _, param in
            let proxy = bound(data)
            proxy.session.nodeParam(proxy, seq: seq, id: id, pod: param)
        }
    }

    nonisolated(unsafe) static let link: UnsafeMutablePointer<pw_link_events> = make { events in
        events.version = UInt32(PW_VERSION_LINK_EVENTS)
        events.info = { data, info in
            guard let info else { return }
            let proxy = bound(data)
            proxy.session.linkInfo(proxy, info.pointee)
        }
    }

    nonisolated(unsafe) static let device: UnsafeMutablePointer<pw_device_events> = make { events in
        events.version = UInt32(PW_VERSION_DEVICE_EVENTS)
        events.info = { data, info in
            guard let info else { return }
            let proxy = bound(data)
            proxy.session.deviceInfo(proxy, info.pointee)
        }
        events.param = { data, seq, id, _, _, param in
            let proxy = bound(data)
            proxy.session.deviceParam(proxy, seq: seq, id: id, pod: param)
        }
    }

    nonisolated(unsafe) static let metadata: UnsafeMutablePointer<pw_metadata_events> = make { events in
        events.version = UInt32(PW_VERSION_METADATA_EVENTS)
        events.property = { data, subject, key, type, value in
            let proxy = bound(data)
            proxy.session.metadataProperty(
                proxy, subject: subject, key: String(optionalCString: key), type: String(optionalCString: type),
                value: String(optionalCString: value))
            return 0
        }
    }

    nonisolated(unsafe) static let profiler: UnsafeMutablePointer<pw_profiler_events> = make { events in
        events.version = UInt32(PW_VERSION_PROFILER_EVENTS)
        events.profile = { data, pod in
            guard let pod else { return }
            let profiler = Unmanaged<ProfilerProxy>.fromOpaque(data!).takeUnretainedValue()
            profiler.session.profiled(by: profiler, pod)
        }
    }

    nonisolated(unsafe) static let ownedLinkProxy: UnsafeMutablePointer<pw_proxy_events> = make { events in
        events.version = UInt32(PW_VERSION_PROXY_EVENTS)
        events.bound = { data, globalID in
            let link = Unmanaged<OwnedLink>.fromOpaque(data!).takeUnretainedValue()
            link.globalID = globalID
        }
        events.error = { data, _, res, message in
            let link = Unmanaged<OwnedLink>.fromOpaque(data!).takeUnretainedValue()
            link.session.ownedLinkFailed(link, result: res, message: String(optionalCString: message) ?? "")
        }
        events.removed = { data in
            let link = Unmanaged<OwnedLink>.fromOpaque(data!).takeUnretainedValue()
            link.session.ownedLinkRemoved(link)
        }
    }

    private static func make<T>(_ fill: (inout T) -> Void) -> UnsafeMutablePointer<T> where T: ZeroInitializable {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
        var value = T()
        fill(&value)
        pointer.initialize(to: value)
        return pointer
    }

    private static func session(_ data: UnsafeMutableRawPointer?) -> GraphSession {
        Unmanaged<GraphSession>.fromOpaque(data!).takeUnretainedValue()
    }

    private static func bound(_ data: UnsafeMutableRawPointer?) -> BoundProxy {
        Unmanaged<BoundProxy>.fromOpaque(data!).takeUnretainedValue()
    }
}

/// C structs imported with a zeroing `init()`.
protocol ZeroInitializable { init() }
extension pw_core_events: ZeroInitializable {}
extension pw_registry_events: ZeroInitializable {}
extension pw_client_events: ZeroInitializable {}
extension pw_node_events: ZeroInitializable {}
extension pw_link_events: ZeroInitializable {}
extension pw_device_events: ZeroInitializable {}
extension pw_metadata_events: ZeroInitializable {}
extension pw_proxy_events: ZeroInitializable {}
extension pw_profiler_events: ZeroInitializable {}
