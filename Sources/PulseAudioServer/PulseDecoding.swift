import CPulse

/// libpulse's introspection structs, copied into the snapshot's value types (the structs are
/// valid only during their callback).
enum PulseDecoding {
    static func server(_ info: pa_server_info) -> PulseServerInfo {
        var server = PulseServerInfo()
        server.serverName = string(info.server_name) ?? ""
        server.serverVersion = string(info.server_version) ?? ""
        server.defaultSinkName = string(info.default_sink_name)
        server.defaultSourceName = string(info.default_source_name)
        server.sampleRate = Int(info.sample_spec.rate)
        server.cookie = info.cookie
        return server
    }

    static func sinkInput(_ info: pa_sink_input_info) -> PulseStream {
        PulseStream(
            kind: .sinkInput, index: info.index, name: string(info.name) ?? "", device: info.sink,
            client: info.client == pulseInvalidIndex ? nil : info.client, properties: properties(info.proplist),
            corked: info.corked != 0, muted: info.mute != 0, channelVolumes: PulseVolume.channels(info.volume),
            volumeWritable: info.volume_writable != 0, sampleRate: Int(info.sample_spec.rate), bufferLatency: info.buffer_usec)
    }

    static func sourceOutput(_ info: pa_source_output_info) -> PulseStream {
        PulseStream(
            kind: .sourceOutput, index: info.index, name: string(info.name) ?? "", device: info.source,
            client: info.client == pulseInvalidIndex ? nil : info.client, properties: properties(info.proplist),
            corked: info.corked != 0, muted: info.mute != 0, channelVolumes: PulseVolume.channels(info.volume),
            volumeWritable: info.volume_writable != 0, sampleRate: Int(info.sample_spec.rate), bufferLatency: info.buffer_usec)
    }

    static func sink(_ info: pa_sink_info) -> PulseDevice {
        PulseDevice(
            kind: .sink, index: info.index, name: string(info.name) ?? "", description: string(info.description) ?? "",
            properties: properties(info.proplist), ports: ports(info.ports, count: info.n_ports),
            activePort: info.active_port.flatMap { string($0.pointee.name) }, state: state(sink: info.state), monitorOf: nil,
            card: info.card == pulseInvalidIndex ? nil : info.card,
            ownerModule: info.owner_module == pulseInvalidIndex ? nil : info.owner_module, sampleRate: Int(info.sample_spec.rate),
            channels: Int(info.sample_spec.channels), latency: info.latency, configuredLatency: info.configured_latency,
            muted: info.mute != 0, channelVolumes: PulseVolume.channels(info.volume))
    }

    static func source(_ info: pa_source_info) -> PulseDevice {
        PulseDevice(
            kind: .source, index: info.index, name: string(info.name) ?? "", description: string(info.description) ?? "",
            properties: properties(info.proplist), ports: ports(info.ports, count: info.n_ports),
            activePort: info.active_port.flatMap { string($0.pointee.name) }, state: state(source: info.state),
            monitorOf: info.monitor_of_sink == pulseInvalidIndex ? nil : info.monitor_of_sink,
            card: info.card == pulseInvalidIndex ? nil : info.card,
            ownerModule: info.owner_module == pulseInvalidIndex ? nil : info.owner_module, sampleRate: Int(info.sample_spec.rate),
            channels: Int(info.sample_spec.channels), latency: info.latency, configuredLatency: info.configured_latency,
            muted: info.mute != 0, channelVolumes: PulseVolume.channels(info.volume))
    }

    static func client(_ info: pa_client_info) -> PulseClient {
        PulseClient(index: info.index, name: string(info.name) ?? "", properties: properties(info.proplist))
    }

    static func card(_ info: pa_card_info) -> PulseCard {
        PulseCard(index: info.index, name: string(info.name) ?? "", activeProfile: info.active_profile2.flatMap { string($0.pointee.name) })
    }

    static func module(_ info: pa_module_info) -> PulseModule {
        PulseModule(index: info.index, name: string(info.name) ?? "", argument: string(info.argument) ?? "")
    }

    // Sink and source ports share a layout; PulseAudio's headers declare two structs.
    private static func ports(_ list: UnsafeMutablePointer<UnsafeMutablePointer<pa_sink_port_info>?>?, count: UInt32) -> [PulsePort] {
        guard let list else { return [] }
        return (0..<Int(count)).compactMap { list[$0]?.pointee }.map(port)
    }

    private static func ports(_ list: UnsafeMutablePointer<UnsafeMutablePointer<pa_source_port_info>?>?, count: UInt32) -> [PulsePort] {
        guard let list else { return [] }
        return (0..<Int(count)).compactMap { list[$0]?.pointee }.map {
            PulsePort(
                name: string($0.name) ?? "", description: string($0.description) ?? "", priority: $0.priority,
                availability: availability($0.available), type: $0.type)
        }
    }

    private static func port(_ info: pa_sink_port_info) -> PulsePort {
        PulsePort(
            name: string(info.name) ?? "", description: string(info.description) ?? "", priority: info.priority,
            availability: availability(info.available), type: info.type)
    }

    private static func availability(_ value: Int32) -> PulsePort.Availability {
        switch UInt32(bitPattern: value) {
        case PA_PORT_AVAILABLE_YES.rawValue: .yes
        case PA_PORT_AVAILABLE_NO.rawValue: .no
        default: .unknown
        }
    }

    private static func state(sink: pa_sink_state_t) -> PulseDevice.State {
        switch sink {
        case PA_SINK_RUNNING: .running
        case PA_SINK_IDLE: .idle
        case PA_SINK_SUSPENDED: .suspended
        default: .unknown
        }
    }

    private static func state(source: pa_source_state_t) -> PulseDevice.State {
        switch source {
        case PA_SOURCE_RUNNING: .running
        case PA_SOURCE_IDLE: .idle
        case PA_SOURCE_SUSPENDED: .suspended
        default: .unknown
        }
    }

    static func properties(_ list: OpaquePointer?) -> [String: String] {
        guard let list else { return [:] }
        var result: [String: String] = [:]
        var state: UnsafeMutableRawPointer?
        while let key = libpulse.pa_proplist_iterate(list, &state) {
            if let value = libpulse.pa_proplist_gets(list, key) {
                result[String(cString: key)] = String(cString: value)
            }
        }
        return result
    }

    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}

/// Per-channel volumes (`pa_cvolume`) to and from Swift arrays, and the linear scale the
/// policy works in.
public enum PulseVolume {
    /// PA_VOLUME_NORM: 100 %.
    public static let norm: UInt32 = 0x10000

    static func channels(_ volume: pa_cvolume) -> [UInt32] {
        var volume = volume
        let count = Int(volume.channels)
        return withUnsafeBytes(of: &volume.values) { Array($0.bindMemory(to: UInt32.self).prefix(count)) }
    }

    static func cvolume(_ channels: [UInt32]) -> pa_cvolume {
        var volume = pa_cvolume()
        volume.channels = UInt8(min(channels.count, Int(PA_CHANNELS_MAX)))
        withUnsafeMutableBytes(of: &volume.values) { bytes in
            let values = bytes.bindMemory(to: UInt32.self)
            for (index, value) in channels.prefix(Int(PA_CHANNELS_MAX)).enumerated() { values[index] = value }
        }
        return volume
    }

    /// The loudest channel, on a linear scale (1.0 = 100 %).
    public static func linear(_ channels: [UInt32]) -> Float {
        Float(libpulse.pa_sw_volume_to_linear(channels.max() ?? 0))
    }

    /// The server's volume step for a linear value.
    public static func step(_ linear: Float) -> UInt32 {
        libpulse.pa_sw_volume_from_linear(Double(max(0, linear)))
    }

    /// `channels` scaled so their loudest is `loudest` (the balance between them kept).
    public static func scaled(_ channels: [UInt32], toLoudest loudest: UInt32) -> [UInt32] {
        let current = channels.max() ?? 0
        guard current > 0 else { return channels.map { _ in loudest } }
        return channels.map { UInt32((UInt64($0) * UInt64(loudest) + UInt64(current) / 2) / UInt64(current)) }
    }
}

/// PA_INVALID_INDEX (a C macro Swift does not import): "none" in an index field.
let pulseInvalidIndex = UInt32.max
