import Foundation
import PipeWireGraph

/// The graph as `audiosessionctl graph` shows it: a stable, Codable view of a snapshot.
struct GraphReport: Codable, Equatable {
    struct NodeEntry: Codable, Equatable {
        var id: UInt32
        var name: String
        var description: String
        var mediaClass: String?
        var role: String?
        var application: String?
        var processID: Int32?
        var state: String
        var volume: Float?
        var mute: Bool?
        var channelVolumes: [Float]?
        var channels: [String]?
        /// A session manager's share over the user's volume and mute (audiosessiond's ducks and
        /// policy mutes), when it differs from them.
        var softVolumes: [Float]?
        var softMute: Bool?
        var isDefault: Bool?
        /// For streams: the nodes they are linked to, by name.
        var linkedTo: [String]?
    }

    struct RouteEntry: Codable, Equatable {
        var index: Int
        var direction: String
        var name: String
        var description: String
        var available: String
        var active: Bool
    }

    struct DeviceEntry: Codable, Equatable {
        var id: UInt32
        var name: String
        var description: String
        var routes: [RouteEntry]
    }

    struct LinkEntry: Codable, Equatable {
        var id: UInt32
        var outputNode: UInt32
        var outputNodeName: String?
        var outputPort: UInt32
        var outputPortName: String?
        var inputNode: UInt32
        var inputNodeName: String?
        var inputPort: UInt32
        var inputPortName: String?
        var state: String
    }

    var remote: String
    var defaultSink: String?
    var defaultSource: String?
    var devices: [DeviceEntry]
    var sinks: [NodeEntry]
    var sources: [NodeEntry]
    var streams: [NodeEntry]
    var links: [LinkEntry]

    init(_ snapshot: GraphSnapshot, remote: String) {
        self.remote = remote
        defaultSink = snapshot.defaultAudioSinkName
        defaultSource = snapshot.defaultAudioSourceName
        devices = snapshot.devices.values.sorted { $0.id < $1.id }.map { device in
            let active = Set(device.activeRoutes.map { "\($0.direction)/\($0.index)" })
            return DeviceEntry(
                id: device.id, name: device.name, description: device.displayName,
                routes: device.enumRoutes.map { route in
                    RouteEntry(
                        index: route.index, direction: route.direction.rawValue, name: route.name,
                        description: route.description, available: route.available.rawValue,
                        active: active.contains("\(route.direction)/\(route.index)"))
                })
        }
        func entry(_ node: Node) -> NodeEntry {
            let client = snapshot.client(of: node)
            let linked = snapshot.links(of: node.id).compactMap { link -> String? in
                let other = link.outputNode == node.id ? link.inputNode : link.outputNode
                return snapshot.nodes[other]?.name
            }
            let isDefault = node.name == defaultSinkName(snapshot) || node.name == snapshot.defaultAudioSourceName
            return NodeEntry(
                id: node.id, name: node.name, description: node.displayName, mediaClass: node.mediaClass,
                role: node.mediaRole, application: node.applicationName ?? client?.applicationName,
                processID: client?.pid ?? node.properties["application.process.id"].flatMap { Int32($0) },
                state: node.state.description, volume: node.props?.volume, mute: node.props?.mute,
                channelVolumes: node.props?.channelVolumes, channels: node.props?.channelMap,
                softVolumes: node.props.flatMap { $0.softVolumes.isEmpty || $0.softVolumes == $0.channelVolumes ? nil : $0.softVolumes },
                softMute: node.props.flatMap { $0.softMute == true && $0.mute != true ? true : nil },
                isDefault: node.isStream ? nil : isDefault,
                linkedTo: node.isStream ? Array(Set(linked)).sorted() : nil)
        }
        sinks = snapshot.sinks.map(entry)
        sources = snapshot.sources.map(entry)
        streams = snapshot.streams.map(entry)
        links = snapshot.links.values.sorted { $0.id < $1.id }.map { link in
            LinkEntry(
                id: link.id, outputNode: link.outputNode, outputNodeName: snapshot.nodes[link.outputNode]?.name,
                outputPort: link.outputPort, outputPortName: snapshot.ports[link.outputPort]?.name,
                inputNode: link.inputNode, inputNodeName: snapshot.nodes[link.inputNode]?.name,
                inputPort: link.inputPort, inputPortName: snapshot.ports[link.inputPort]?.name,
                state: link.state.description)
        }
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    func text() -> String {
        var out = "PipeWire graph (\(remote))\n"
        out += "\nDevices:\n"
        if devices.isEmpty { out += "  (none)\n" }
        for device in devices {
            out += "  \(pad(device.id)) \(device.name)  \"\(device.description)\"\n"
            for route in device.routes {
                let marker = route.active ? "*" : " "
                out += "       \(marker) route \(route.index) \(route.direction) \(route.name) \"\(route.description)\" available=\(route.available)\n"
            }
        }
        for (title, nodes) in [("Sinks", sinks), ("Sources", sources)] {
            out += "\n\(title):\n"
            if nodes.isEmpty { out += "  (none)\n" }
            for node in nodes {
                let marker = node.isDefault == true ? "*" : " "
                out += " \(marker)\(pad(node.id)) \(node.name)  \"\(node.description)\"  \(node.state)\(volumeText(node))\n"
            }
        }
        out += "\nStreams:\n"
        if streams.isEmpty { out += "  (none)\n" }
        for node in streams {
            var line = "  \(pad(node.id)) \(node.name)  \(node.mediaClass ?? "?")"
            line += "  role=\(node.role ?? "-")  app=\(node.application ?? "-")"
            if let pid = node.processID { line += "  pid=\(pid)" }
            line += "  \(node.state)\(volumeText(node))"
            if let targets = node.linkedTo, !targets.isEmpty { line += "  → \(targets.joined(separator: ", "))" }
            out += line + "\n"
        }
        out += "\nLinks:\n"
        if links.isEmpty { out += "  (none)\n" }
        for link in links {
            out += "  \(pad(link.id)) \(link.outputNodeName ?? "?"):\(link.outputPortName ?? String(link.outputPort))"
            out += " → \(link.inputNodeName ?? "?"):\(link.inputPortName ?? String(link.inputPort))  \(link.state)\n"
        }
        if let defaultSink { out += "\nDefault sink: \(defaultSink)\n" }
        if let defaultSource { out += "Default source: \(defaultSource)\n" }
        return out
    }

    private func pad(_ id: UInt32) -> String {
        let text = String(id)
        return String(repeating: " ", count: max(0, 4 - text.count)) + text
    }

    private func volumeText(_ node: NodeEntry) -> String {
        guard let volume = node.volume else { return "" }
        var text = "  volume \(String(format: "%.2f", volume))"
        if let channels = node.channelVolumes, !channels.isEmpty {
            text += " [" + channels.map { String(format: "%.2f", $0) }.joined(separator: " ") + "]"
        }
        if node.mute == true { text += " muted" }
        if let soft = node.softVolumes {
            text += " ducked to [" + soft.map { String(format: "%.2f", $0) }.joined(separator: " ") + "]"
        }
        if node.softMute == true { text += " muted by policy" }
        return text
    }
}

private func defaultSinkName(_ snapshot: GraphSnapshot) -> String? { snapshot.defaultAudioSinkName }
