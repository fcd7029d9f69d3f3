/// A PipeWire global object id (registry id). Ids are reused after removal; `Node.serial` is not.
public typealias GlobalID = UInt32

/// A node: a device sink/source, an application stream, or a filter.
public struct Node: Sendable, Equatable, Identifiable {
    public var id: GlobalID
    /// `object.serial`: unique for the daemon's lifetime, unlike `id`.
    public var serial: UInt64?
    /// `node.name`.
    public var name: String
    /// `media.class`, e.g. `Audio/Sink`, `Stream/Output/Audio`.
    public var mediaClass: String?
    public var clientID: GlobalID?
    public var deviceID: GlobalID?
    public var properties: [String: String]
    public var state: NodeState
    /// Last known `Props` param; nil until read (or when the node has none).
    public var props: NodeProps?
    public var inputPortCount: Int
    public var outputPortCount: Int

    public init(
        id: GlobalID, serial: UInt64? = nil, name: String, mediaClass: String? = nil,
        clientID: GlobalID? = nil, deviceID: GlobalID? = nil, properties: [String: String] = [:],
        state: NodeState = .creating, props: NodeProps? = nil, inputPortCount: Int = 0, outputPortCount: Int = 0
    ) {
        self.id = id
        self.serial = serial
        self.name = name
        self.mediaClass = mediaClass
        self.clientID = clientID
        self.deviceID = deviceID
        self.properties = properties
        self.state = state
        self.props = props
        self.inputPortCount = inputPortCount
        self.outputPortCount = outputPortCount
    }

    /// A node as its registry entry describes it (``GraphEvent/announced(_:)``): the few
    /// properties the server copies there, no state yet.
    init(announced id: GlobalID, globalProperties properties: [String: String]) {
        self.init(
            id: id, serial: properties["object.serial"].flatMap { UInt64($0) }, name: properties["node.name"] ?? "",
            mediaClass: properties["media.class"], clientID: properties["client.id"].flatMap { GlobalID($0) },
            deviceID: properties["device.id"].flatMap { GlobalID($0) }, properties: properties)
    }

    /// `node.driver-id`: the driver the node follows, which PipeWire 1.x rewrites in a node's
    /// properties whenever a link comes or goes. The mirror leaves it out of ``properties``.
    static let driverIDProperty = "node.driver-id"

    /// An application stream (`Stream/...`).
    public var isStream: Bool { mediaClass?.hasPrefix("Stream/") ?? false }
    /// A playback stream: it produces audio for a sink.
    public var isPlaybackStream: Bool { mediaClass == "Stream/Output/Audio" }
    /// A capture stream: it consumes audio from a source.
    public var isCaptureStream: Bool { mediaClass == "Stream/Input/Audio" }
    /// An audio sink (`Audio/Sink`, `Audio/Duplex` counts as both).
    public var isSink: Bool { mediaClass == "Audio/Sink" || mediaClass == "Audio/Duplex" }
    /// An audio source, including virtual ones (`Audio/Source/Virtual`).
    public var isSource: Bool {
        guard let mediaClass else { return false }
        return mediaClass.hasPrefix("Audio/Source") || mediaClass == "Audio/Duplex"
    }
    public var isAudio: Bool { mediaClass?.contains("Audio") ?? false }
    /// Which way the audio of the node's adapter faces the graph: input for a sink, a capture
    /// stream and a null sink whatever its class (a virtual source made of one gives out its
    /// monitor); output for a source and a playback stream. Its DSP ports (`PortConfig`) go
    /// that way.
    public var adapterDirection: Direction {
        let takesInput = isSink || isCaptureStream || properties["factory.name"] == "support.null-audio-sink"
        return takesInput ? .input : .output
    }
    /// `media.role` as the client set it (`Music`, `Movie`, `Communication`, ...).
    public var mediaRole: String? { properties["media.role"] }
    /// `application.name` (copied onto stream nodes by libpipewire / pipewire-pulse).
    public var applicationName: String? { properties["application.name"] }
    public var processBinary: String? { properties["application.process.binary"] }
    /// `node.description`, else `node.nick`, else `node.name`.
    public var displayName: String { properties["node.description"] ?? properties["node.nick"] ?? name }
    /// `pulse.corked`: a pulse client paused its own stream.
    public var isCorked: Bool { properties["pulse.corked"] == "true" }
}

/// `enum pw_node_state`.
public enum NodeState: Sendable, Equatable, CustomStringConvertible {
    case creating, suspended, idle, running
    case error(String)

    public var description: String {
        switch self {
        case .creating: "creating"
        case .suspended: "suspended"
        case .idle: "idle"
        case .running: "running"
        case .error(let message): "error: \(message)"
        }
    }
}

/// The node's `Props` param: the volumes audiosession reads and writes.
///
/// `volume` is the stream's own factor (the app's), `channelVolumes` and `mute` are the user's
/// (what pulse clients and mixers set). `softVolumes` and `softMute` are what the converter
/// applies instead of those two from the moment they are written until `channelVolumes` or
/// `mute` are written again: where a session manager puts its own share (our ducks and
/// policy mutes), which no mixer shows and WirePlumber does not save.
public struct NodeProps: Sendable, Equatable {
    public var volume: Float?
    public var mute: Bool?
    public var channelVolumes: [Float]
    /// Channel positions matching `channelVolumes` ("FL", "FR", ...).
    public var channelMap: [String]
    public var softMute: Bool?
    public var softVolumes: [Float]

    public init(
        volume: Float? = nil, mute: Bool? = nil, channelVolumes: [Float] = [], channelMap: [String] = [],
        softMute: Bool? = nil, softVolumes: [Float] = []
    ) {
        self.volume = volume
        self.mute = mute
        self.channelVolumes = channelVolumes
        self.channelMap = channelMap
        self.softMute = softMute
        self.softVolumes = softVolumes
    }
}

extension NodeProps {
    /// The soft volumes over the channel volumes (first channel, to 4 decimals, at most 1): a
    /// session manager's share of the level as an observer reads it; 1 where there is none.
    /// Props do not tell whether the converter still applies them (a write of `channelVolumes`
    /// stops it); soft volumes above the channel ones are the converter's defaults under a
    /// user's lower level, which nobody wrote (a duck only lowers).
    public var softFactor: Float {
        guard let soft = softVolumes.first, let channel = channelVolumes.first, channel > 0 else { return 1 }
        return Float(min(1, (Double(soft) / Double(channel) * 10_000).rounded() / 10_000))
    }

    /// `volume` times ``softFactor``: the stream's level over its user's, as a duck makes it.
    public var duckedVolume: Float? { volume.map { $0 * softFactor } }
}

/// Commands `PipeWireGraph.send(_:to:)` can deliver to a node.
public enum NodeCommand: Sendable, Equatable {
    case suspend, pause, start
}
