#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HashTreeCollections

/// An immutable view of the PipeWire graph at one instant.
///
/// Its tables are persistent hash tries (`TreeDictionary`): a copy shares everything with its
/// original, and changing one object copies only the path to it. The mirror changes one object
/// per event while the published snapshot and the daemon hold copies of the previous one, so
/// with plain dictionaries every event copied whole tables (most of the daemon's time at 100
/// streams). Ports and links are also indexed by node, so a node's ports and links are found
/// without a scan.
public struct GraphSnapshot: Sendable, Equatable {
    public typealias Table<Value> = TreeDictionary<GlobalID, Value>

    public var clients: Table<Client>
    public var nodes: Table<Node>
    /// Change with ``insert(_:)-port`` / ``removePort(_:)`` so the per-node index stays true.
    public private(set) var ports: Table<Port>
    /// Change with ``insert(_:)-link`` / ``removeLink(_:)`` so the per-node index stays true.
    public private(set) var links: Table<Link>
    public var devices: Table<Device>
    /// By `metadata.name`: "default", "settings", ...
    public var metadata: [String: Metadata]
    /// The server's release from its core info (nil until the first info arrives).
    public var serverVersion: PipeWireVersion?
    /// The server's profiler (`libpipewire-module-profiler`), if it has one: what
    /// ``PipeWireGraph/sampleClocks()`` binds.
    public var profiler: GlobalID?
    /// Port ids by their node.
    private var portsByNode: Table<Set<GlobalID>> = [:]
    /// Link ids by each of their two nodes.
    private var linksByNode: Table<Set<GlobalID>> = [:]

    public init(
        clients: Table<Client> = [:], nodes: Table<Node> = [:], ports: Table<Port> = [:],
        links: Table<Link> = [:], devices: Table<Device> = [:], metadata: [String: Metadata] = [:],
        serverVersion: PipeWireVersion? = nil
    ) {
        self.clients = clients
        self.nodes = nodes
        self.ports = [:]
        self.links = [:]
        self.devices = devices
        self.metadata = metadata
        self.serverVersion = serverVersion
        for port in ports.values { insert(port) }
        for link in links.values { insert(link) }
    }

    public static func == (lhs: GraphSnapshot, rhs: GraphSnapshot) -> Bool {
        lhs.clients == rhs.clients && lhs.nodes == rhs.nodes && lhs.ports == rhs.ports && lhs.links == rhs.links
            && lhs.devices == rhs.devices && lhs.metadata == rhs.metadata && lhs.serverVersion == rhs.serverVersion
            && lhs.profiler == rhs.profiler
    }

    // MARK: - Changing ports and links (the mirror)

    public mutating func insert(_ port: Port) {
        if let old = ports.updateValue(port, forKey: port.id), old.nodeID != port.nodeID {
            Self.remove(port.id, under: old.nodeID, from: &portsByNode)
        }
        Self.add(port.id, under: port.nodeID, to: &portsByNode)
    }

    @discardableResult
    public mutating func removePort(_ id: GlobalID) -> Port? {
        guard let port = ports.removeValue(forKey: id) else { return nil }
        Self.remove(id, under: port.nodeID, from: &portsByNode)
        return port
    }

    public mutating func insert(_ link: Link) {
        if let old = links.updateValue(link, forKey: link.id) {
            Self.remove(link.id, under: old.outputNode, from: &linksByNode)
            Self.remove(link.id, under: old.inputNode, from: &linksByNode)
        }
        Self.add(link.id, under: link.outputNode, to: &linksByNode)
        Self.add(link.id, under: link.inputNode, to: &linksByNode)
    }

    @discardableResult
    public mutating func removeLink(_ id: GlobalID) -> Link? {
        guard let link = links.removeValue(forKey: id) else { return nil }
        Self.remove(id, under: link.outputNode, from: &linksByNode)
        Self.remove(id, under: link.inputNode, from: &linksByNode)
        return link
    }

    private static func add(_ id: GlobalID, under node: GlobalID, to index: inout Table<Set<GlobalID>>) {
        index[node, default: []].insert(id)  // in place: a device's set of links is not copied
    }

    private static func remove(_ id: GlobalID, under node: GlobalID, from index: inout Table<Set<GlobalID>>) {
        guard index[node]?.remove(id) != nil else { return }
        if index[node]?.isEmpty == true { index[node] = nil }
    }

    public var isEmpty: Bool {
        clients.isEmpty && nodes.isEmpty && ports.isEmpty && links.isEmpty && devices.isEmpty && metadata.isEmpty
    }

    /// Ports of `node`, optionally of one direction, in `port.id` order (the node's own order).
    public func ports(of node: GlobalID, direction: Direction? = nil) -> [Port] {
        (portsByNode[node] ?? [])
            .compactMap { ports[$0] }
            .filter { direction == nil || $0.direction == direction }
            .sorted { ($0.portIndex, $0.id) < ($1.portIndex, $1.id) }
    }

    /// How many ports of `node` the mirror has (no copies).
    public func portCount(of node: GlobalID) -> Int { portsByNode[node]?.count ?? 0 }

    /// True when every port the node's info announces is in the mirror (ports arrive one by one).
    public func hasAllPorts(of node: GlobalID) -> Bool {
        guard let info = nodes[node] else { return false }
        let expected = info.inputPortCount + info.outputPortCount
        return expected > 0 && portCount(of: node) == expected
    }

    /// Whether the node has DSP ports (one mono float port per channel, `format.dsp`) on the
    /// side its adapter faces: what linking needs. Without a session manager, a device's
    /// adapter may have none, or a converter's single port (PipeWire 1.x leaves a null sink's
    /// `adapter.auto-port-config` undone).
    public func hasDSPPorts(_ node: Node) -> Bool {
        let facing = ports(of: node.id, direction: node.adapterDirection).filter { !$0.isMonitor }
        return !facing.isEmpty && facing.allSatisfy { $0.properties["format.dsp"] != nil }
    }

    /// Links that start or end at `node`, by id.
    public func links(of node: GlobalID) -> [Link] {
        (linksByNode[node] ?? []).sorted().compactMap { links[$0] }
    }

    /// How many links start or end at `node` (no copies).
    public func linkCount(of node: GlobalID) -> Int { linksByNode[node]?.count ?? 0 }

    /// Links from `output` to `input`, by id.
    public func links(from output: GlobalID, to input: GlobalID) -> [Link] {
        links(of: output).filter { $0.outputNode == output && $0.inputNode == input }
    }

    public func node(named name: String) -> Node? {
        nodes.values.filter { $0.name == name }.min { $0.id < $1.id }
    }

    /// Nodes sorted by id, for stable output.
    public var sortedNodes: [Node] { nodes.values.sorted { $0.id < $1.id } }
    public var sinks: [Node] { sortedNodes.filter(\.isSink) }
    public var sources: [Node] { sortedNodes.filter { $0.isSource && !$0.isSink } }
    public var streams: [Node] { sortedNodes.filter(\.isStream) }

    /// The client that owns `node`, if known.
    public func client(of node: Node) -> Client? { node.clientID.flatMap { clients[$0] } }

    public var defaultAudioSinkName: String? { defaultNodeName("default.audio.sink") }
    public var defaultAudioSourceName: String? { defaultNodeName("default.audio.source") }
    public var configuredAudioSinkName: String? { defaultNodeName("default.configured.audio.sink") }
    public var configuredAudioSourceName: String? { defaultNodeName("default.configured.audio.source") }
    public var defaultAudioSink: Node? { defaultAudioSinkName.flatMap(node(named:)) }
    public var defaultAudioSource: Node? { defaultAudioSourceName.flatMap(node(named:)) }

    /// Reads a `default` metadata key holding `{"name":"..."}` (a bare name is accepted too).
    public func defaultNodeName(_ key: String) -> String? {
        guard let raw = metadata["default"]?.value(for: key) else { return nil }
        return Self.nodeName(fromDefaultValue: raw)
    }

    static func nodeName(fromDefaultValue raw: String) -> String? {
        guard let value = try? JSONDecoder().decode(DefaultNodeValue.self, from: Data(raw.utf8)) else {
            return raw.isEmpty || raw.hasPrefix("{") ? nil : raw
        }
        return value.name
    }

    /// `{"name": "..."}`, the value of the `default` metadata's node keys.
    private struct DefaultNodeValue: Decodable {
        var name: String?
    }
}

extension Port {
    /// `port.id`: the port's index within its node and direction.
    var portIndex: Int { properties["port.id"].flatMap { Int($0) } ?? Int.max }
}
