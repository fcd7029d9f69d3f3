import CPipeWire
import PipeWireShim

extension Dictionary where Key == String, Value == String {
    /// Copies a `spa_dict` (valid only during the callback) into Swift strings.
    init(spaDict: UnsafePointer<spa_dict>?) {
        self.init()
        guard let dict = spaDict?.pointee, let items = dict.items else { return }
        for index in 0..<Int(dict.n_items) {
            let item = items[index]
            guard let key = item.key, let value = item.value else { continue }
            self[String(cString: key)] = String(cString: value)
        }
    }
}

extension String {
    init?(optionalCString pointer: UnsafePointer<CChar>?) {
        guard let pointer else { return nil }
        self.init(cString: pointer)
    }
}

/// Bits of `spa_param_info.flags` and of the info `change_mask`s (plain macros in C).
enum ParamFlag {
    static let serial: UInt32 = 1 << 0
    static let read: UInt32 = 1 << 1
}

enum ChangeMask {
    static let nodeState: UInt64 = 1 << 2
    static let nodeProps: UInt64 = 1 << 3
    static let nodeParams: UInt64 = 1 << 4
    static let deviceProps: UInt64 = 1 << 0
    static let deviceParams: UInt64 = 1 << 1
    static let clientProps: UInt64 = 1 << 0
    static let linkState: UInt64 = 1 << 0
    static let linkProps: UInt64 = 1 << 2
}

enum ChannelNames {
    static func name(_ channel: UInt32) -> String {
        String(optionalCString: pws_channel_name(channel)) ?? "UNK"
    }

    static func channel(_ name: String) -> UInt32 { pws_channel_from_name(name) }

    /// Positions for `count` channels when the node declares none: MONO, FL FR, else AUX0..n.
    static func defaultPositions(count: Int) -> [UInt32] {
        switch count {
        case 1: [channel("MONO")]
        case 2: [channel("FL"), channel("FR")]
        default: (0..<count).map { channel("AUX\($0)") }
        }
    }
}

extension NodeProps {
    /// The fields one `Props` object carries; absent fields keep their earlier value.
    mutating func merge(_ parsed: pws_props) {
        if parsed.has_volume { volume = parsed.volume }
        if parsed.has_mute { mute = parsed.mute }
        if parsed.has_channel_volumes {
            channelVolumes = withUnsafeBytes(of: parsed.channel_volumes) { raw in
                Array(raw.bindMemory(to: Float.self).prefix(Int(parsed.n_channel_volumes)))
            }
        }
        if parsed.has_channel_map {
            channelMap = withUnsafeBytes(of: parsed.channel_map) { raw in
                raw.bindMemory(to: UInt32.self).prefix(Int(parsed.n_channel_map)).map(ChannelNames.name)
            }
        }
        if parsed.has_soft_mute { softMute = parsed.soft_mute }
        if parsed.has_soft_volumes {
            softVolumes = withUnsafeBytes(of: parsed.soft_volumes) { raw in
                Array(raw.bindMemory(to: Float.self).prefix(Int(parsed.n_soft_volumes)))
            }
        }
    }
}

extension Route {
    init?(parsing pod: UnsafePointer<spa_pod>?) {
        var parsed = pws_route()
        guard let pod, pws_parse_route(pod, &parsed), parsed.index >= 0 else { return nil }
        var props: NodeProps?
        if let routeProps = parsed.props {
            var values = pws_props()
            if pws_parse_props(routeProps, &values) {
                var merged = NodeProps()
                merged.merge(values)
                props = merged
            }
        }
        self.init(
            index: Int(parsed.index),
            device: parsed.device >= 0 ? Int(parsed.device) : nil,
            direction: parsed.direction == Int32(SPA_DIRECTION_OUTPUT.rawValue) ? .output : .input,
            name: String(optionalCString: parsed.name) ?? "",
            description: String(optionalCString: parsed.description) ?? "",
            available: RouteAvailability(spa: parsed.available),
            priority: Int(parsed.priority),
            props: props,
            profiles: withUnsafeBytes(of: parsed.profiles) { raw in
                raw.bindMemory(to: Int32.self).prefix(Int(parsed.n_profiles)).map(Int.init)
            },
            devices: withUnsafeBytes(of: parsed.devices) { raw in
                raw.bindMemory(to: Int32.self).prefix(Int(parsed.n_devices)).map(Int.init)
            })
    }
}

extension DeviceProfile {
    init?(parsing pod: UnsafePointer<spa_pod>?) {
        var parsed = pws_device_profile()
        guard let pod, pws_parse_device_profile(pod, &parsed), parsed.index >= 0 else { return nil }
        self.init(
            index: Int(parsed.index), name: String(optionalCString: parsed.name) ?? "",
            description: String(optionalCString: parsed.description) ?? "",
            available: RouteAvailability(spa: parsed.available), priority: Int(parsed.priority), save: parsed.save)
    }
}

extension RouteAvailability {
    init(spa value: UInt32) {
        switch value {
        case SPA_PARAM_AVAILABILITY_yes.rawValue: self = .yes
        case SPA_PARAM_AVAILABILITY_no.rawValue: self = .no
        default: self = .unknown
        }
    }
}

extension NodeState {
    init(_ state: pw_node_state, error: UnsafePointer<CChar>?) {
        switch state {
        case PW_NODE_STATE_CREATING: self = .creating
        case PW_NODE_STATE_SUSPENDED: self = .suspended
        case PW_NODE_STATE_IDLE: self = .idle
        case PW_NODE_STATE_RUNNING: self = .running
        default: self = .error(String(optionalCString: error) ?? "unknown error")
        }
    }
}

extension LinkState {
    init(_ state: pw_link_state, error: UnsafePointer<CChar>?) {
        switch state {
        case PW_LINK_STATE_UNLINKED: self = .unlinked
        case PW_LINK_STATE_INIT: self = .initial
        case PW_LINK_STATE_NEGOTIATING: self = .negotiating
        case PW_LINK_STATE_ALLOCATING: self = .allocating
        case PW_LINK_STATE_PAUSED: self = .paused
        case PW_LINK_STATE_ACTIVE: self = .active
        default: self = .error(String(optionalCString: error) ?? "unknown error")
        }
    }
}
