/// What a PulseAudio server holds, as one libpulse client sees it: kept up to date by
/// ``PulseConnection`` from the server's subscription events, each answered by a fresh query
/// (the server merges events, so an event says only *that* something changed).
///
/// Sink inputs and source outputs are numbered separately, as are sinks and sources: every
/// table here is keyed by the server's index within its own kind.
public struct PulseSnapshot: Sendable {
    public var server = PulseServerInfo()
    public var sinkInputs: [UInt32: PulseStream] = [:]
    public var sourceOutputs: [UInt32: PulseStream] = [:]
    public var sinks: [UInt32: PulseDevice] = [:]
    public var sources: [UInt32: PulseDevice] = [:]
    public var clients: [UInt32: PulseClient] = [:]
    public var modules: [UInt32: PulseModule] = [:]
    public var cards: [UInt32: PulseCard] = [:]

    public init() {}

    public func streams(_ kind: PulseStream.Kind) -> [UInt32: PulseStream] {
        kind == .sinkInput ? sinkInputs : sourceOutputs
    }

    public func devices(_ kind: PulseDevice.Kind) -> [UInt32: PulseDevice] {
        kind == .sink ? sinks : sources
    }

    public func device(named name: String, _ kind: PulseDevice.Kind) -> PulseDevice? {
        devices(kind).values.first { $0.name == name }
    }

    /// The server's default sink or source, if it is known.
    public func defaultDevice(_ kind: PulseDevice.Kind) -> PulseDevice? {
        server.defaultName(kind).flatMap { device(named: $0, kind) }
    }
}

/// The server's own description: which server it is and its defaults.
public struct PulseServerInfo: Hashable, Sendable {
    /// "pulseaudio" for PulseAudio itself; pipewire-pulse names itself "PulseAudio (on PipeWire ...)".
    public var serverName = ""
    public var serverVersion = ""
    public var defaultSinkName: String?
    public var defaultSourceName: String?
    public var sampleRate: Int = 0
    /// Random per server instance: tells a restarted server from the one before.
    public var cookie: UInt32 = 0

    public init() {}

    /// The server is PipeWire's pulse server, not PulseAudio.
    public var isPipeWire: Bool { serverName.contains("PipeWire") }

    /// The default sink's or source's name.
    public func defaultName(_ kind: PulseDevice.Kind) -> String? { kind == .sink ? defaultSinkName : defaultSourceName }
}

/// A sink input (playback) or source output (capture).
public struct PulseStream: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case sinkInput = "sink-input"
        case sourceOutput = "source-output"

        /// What a stream of this kind plays into or records from.
        public var deviceKind: PulseDevice.Kind { self == .sinkInput ? .sink : .source }
    }

    public var kind: Kind
    public var index: UInt32
    public var name: String
    /// The sink or source it plays to or records from.
    public var device: UInt32
    public var client: UInt32?
    /// The owning client's proplist merged in by the server: `application.*`, `media.role`.
    public var properties: [String: String]
    public var corked: Bool
    public var muted: Bool
    /// Per-channel volumes (`pa_volume_t`, PA_VOLUME_NORM = 65536).
    public var channelVolumes: [UInt32]
    public var volumeWritable: Bool
    public var sampleRate: Int
    /// The latency the server buffers for it, in microseconds.
    public var bufferLatency: UInt64

    public init(
        kind: Kind, index: UInt32, name: String, device: UInt32, client: UInt32?, properties: [String: String],
        corked: Bool, muted: Bool, channelVolumes: [UInt32], volumeWritable: Bool, sampleRate: Int, bufferLatency: UInt64
    ) {
        self.kind = kind
        self.index = index
        self.name = name
        self.device = device
        self.client = client
        self.properties = properties
        self.corked = corked
        self.muted = muted
        self.channelVolumes = channelVolumes
        self.volumeWritable = volumeWritable
        self.sampleRate = sampleRate
        self.bufferLatency = bufferLatency
    }
}

/// A sink or a source (a sink's monitor is a source that names it).
public struct PulseDevice: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case sink
        case source
    }

    public enum State: String, Hashable, Sendable {
        case running, idle, suspended, unknown
    }

    public var kind: Kind
    public var index: UInt32
    public var name: String
    public var description: String
    public var properties: [String: String]
    public var ports: [PulsePort]
    public var activePort: String?
    public var state: State
    /// For a monitor source: the sink it monitors.
    public var monitorOf: UInt32?
    public var card: UInt32?
    /// The module that made it (a null sink's `module-null-sink`), if any.
    public var ownerModule: UInt32?
    public var sampleRate: Int
    public var channels: Int
    /// The latency the device runs at now, and the one it is configured for (microseconds).
    public var latency: UInt64
    public var configuredLatency: UInt64
    /// Muted by its user (a source's mute is the microphone's mute key).
    public var muted: Bool
    /// Its volume per channel (`PA_VOLUME_NORM` = 100 %).
    public var channelVolumes: [UInt32]

    public init(
        kind: Kind, index: UInt32, name: String, description: String, properties: [String: String], ports: [PulsePort],
        activePort: String?, state: State, monitorOf: UInt32?, card: UInt32?, ownerModule: UInt32?, sampleRate: Int,
        channels: Int, latency: UInt64, configuredLatency: UInt64, muted: Bool = false, channelVolumes: [UInt32] = []
    ) {
        self.muted = muted
        self.channelVolumes = channelVolumes
        self.ownerModule = ownerModule
        self.kind = kind
        self.index = index
        self.name = name
        self.description = description
        self.properties = properties
        self.ports = ports
        self.activePort = activePort
        self.state = state
        self.monitorOf = monitorOf
        self.card = card
        self.sampleRate = sampleRate
        self.channels = channels
        self.latency = latency
        self.configuredLatency = configuredLatency
    }
}

/// One port of a sink or source (a jack, the speaker, a headset mic).
public struct PulsePort: Hashable, Sendable {
    public enum Availability: String, Hashable, Sendable {
        case unknown, no, yes
    }

    public var name: String
    public var description: String
    public var priority: UInt32
    public var availability: Availability
    /// `pa_device_port_type_t` (speaker 1, headphones 2, ... since PulseAudio 14).
    public var type: UInt32

    public init(name: String, description: String, priority: UInt32, availability: Availability, type: UInt32) {
        self.name = name
        self.description = description
        self.priority = priority
        self.availability = availability
        self.type = type
    }
}

public struct PulseClient: Hashable, Sendable {
    public var index: UInt32
    public var name: String
    public var properties: [String: String]

    public init(index: UInt32, name: String, properties: [String: String]) {
        self.index = index
        self.name = name
        self.properties = properties
    }
}

public struct PulseModule: Hashable, Sendable {
    public var index: UInt32
    public var name: String
    public var argument: String

    public init(index: UInt32, name: String, argument: String) {
        self.index = index
        self.name = name
        self.argument = argument
    }
}

/// A card (an ALSA card, a Bluetooth headset): the owner of sinks and sources, with one active
/// profile whose sinks and sources exist.
public struct PulseCard: Hashable, Sendable {
    public var index: UInt32
    public var name: String
    /// The active profile's name (`output:analog-stereo`, `a2dp-sink`, `off`), if any.
    public var activeProfile: String?

    public init(index: UInt32, name: String, activeProfile: String?) {
        self.index = index
        self.name = name
        self.activeProfile = activeProfile
    }
}

/// What changed on the server, after the snapshot took it in.
public enum PulseEvent: Sendable {
    /// Connected, and the snapshot holds all of the server (first connect or a new server).
    case synced
    /// The server went away; the snapshot is empty. The connection tries again by itself.
    case disconnected(reason: String)
    case streamAdded(PulseStream)
    case streamChanged(PulseStream, previous: PulseStream)
    case streamRemoved(PulseStream)
    case deviceAdded(PulseDevice)
    case deviceChanged(PulseDevice, previous: PulseDevice)
    case deviceRemoved(PulseDevice)
    case clientChanged(PulseClient)
    case clientRemoved(PulseClient)
    case modulesChanged
    case serverChanged(PulseServerInfo, previous: PulseServerInfo)
    /// A card appeared or changed (its active profile).
    case cardChanged(PulseCard)
    case cardRemoved(PulseCard)
}
