#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An immutable view of the PipeWire graph at one instant. Cheap to copy (copy-on-write dictionaries).
public struct GraphSnapshot: Sendable, Equatable {
    public var clients: [GlobalID: Client]
    public var nodes: [GlobalID: Node]
    public var ports: [GlobalID: Port]
    public var links: [GlobalID: Link]
    public var devices: [GlobalID: Device]
    /// By `metadata.name`: "default", "settings", ...
    public var metadata: [String: Metadata]

    public init(
        clients: [GlobalID: Client] = [:], nodes: [GlobalID: Node] = [:], ports: [GlobalID: Port] = [:],
        links: [GlobalID: Link] = [:], devices: [GlobalID: Device] = [:], metadata: [String: Metadata] = [:]
    ) {
        self.clients = clients
        self.nodes = nodes
        self.ports = ports
        self.links = links
        self.devices = devices
        self.metadata = metadata
    }

    public var isEmpty: Bool {
        clients.isEmpty && nodes.isEmpty && ports.isEmpty && links.isEmpty && devices.isEmpty && metadata.isEmpty
    }

    /// Ports of `node`, optionally of one direction, in `port.id` order (the node's own order).
    public func ports(of node: GlobalID, direction: Direction? = nil) -> [Port] {
        ports.values
            .filter { $0.nodeID == node && (direction == nil || $0.direction == direction) }
            .sorted { ($0.portIndex, $0.id) < ($1.portIndex, $1.id) }
    }

    /// True when every port the node's info announces is in the mirror (ports arrive one by one).
    public func hasAllPorts(of node: GlobalID) -> Bool {
        guard let info = nodes[node] else { return false }
        let expected = info.inputPortCount + info.outputPortCount
        return expected > 0 && ports(of: node).count == expected
    }

    /// Links that start or end at `node`, by id.
    public func links(of node: GlobalID) -> [Link] {
        links.values.filter { $0.outputNode == node || $0.inputNode == node }.sorted { $0.id < $1.id }
    }

    /// Links from `output` to `input`, by id.
    public func links(from output: GlobalID, to input: GlobalID) -> [Link] {
        links.values.filter { $0.outputNode == output && $0.inputNode == input }.sorted { $0.id < $1.id }
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
