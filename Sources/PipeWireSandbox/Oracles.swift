import Foundation

/// `pw-dump` output, parsed with Foundation: an oracle independent of PipeWireGraph.
public struct PipeWireDump: @unchecked Sendable {
    public struct Object: @unchecked Sendable {
        public let id: UInt32
        public let type: String
        public let info: [String: Any]
        public let properties: [String: Any]
        /// Metadata objects: their entries.
        public let metadata: [[String: Any]]

        public var name: String? { properties["node.name"] as? String }
        public var mediaClass: String? { properties["media.class"] as? String }
        public var state: String? { info["state"] as? String }

        /// The first `Props` param object, if the dump has it.
        public var props: [String: Any]? {
            ((info["params"] as? [String: Any])?["Props"] as? [[String: Any]])?.first
        }
        public var volume: Double? { (props?["volume"] as? NSNumber)?.doubleValue }
        public var mute: Bool? { props?["mute"] as? Bool }
        public var channelVolumes: [Double]? { (props?["channelVolumes"] as? [NSNumber])?.map(\.doubleValue) }
        /// A session manager's share (audiosessiond's ducks and policy mutes), which the
        /// converter applies instead of `channelVolumes` and `mute` until those are written.
        public var softMute: Bool? { props?["softMute"] as? Bool }
        public var softVolumes: [Double]? { (props?["softVolumes"] as? [NSNumber])?.map(\.doubleValue) }
        /// The soft volumes over the channel volumes (first channel, to 4 decimals, at most 1): a
        /// duck of audiosessiond's as its factor; 1 where there is none (soft volumes above the
        /// channel ones are the converter's defaults under a user's lower level: a duck only lowers).
        public var softFactor: Double {
            guard let soft = softVolumes?.first, let channel = channelVolumes?.first, channel > 0 else { return 1 }
            return min(1, (soft / channel * 10_000).rounded() / 10_000)
        }
        /// `volume` times ``softFactor``: the stream's level over its user's, as a duck makes it.
        public var duckedVolume: Double? { volume.map { $0 * softFactor } }

        public func property(_ key: String) -> String? {
            switch properties[key] {
            case let string as String: string
            case let number as NSNumber: number.stringValue
            default: nil
            }
        }
    }

    public let objects: [Object]

    /// Parses what `pw-dump` printed: one array of objects, and, from pw-dump 0.3.65, an array
    /// `[{"id": N, "info": null}]` for each object removed while it dumped, before or after the
    /// dump's own array (it printed removals when not monitoring too, until 1.3.81). The
    /// arrays are taken in order, so an object removed after the dump is not in the result.
    public init(json: String) throws {
        var objects: [Object] = []
        for document in Self.documents(in: json) {
            guard let array = try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [[String: Any]] else {
                throw SandboxError.commandFailed("pw-dump did not print a JSON array")
            }
            for entry in array {
                guard let id = (entry["id"] as? NSNumber)?.uint32Value else { continue }
                guard let type = entry["type"] as? String else {
                    objects.removeAll { $0.id == id }
                    continue
                }
                let info = entry["info"] as? [String: Any] ?? [:]
                let properties = info["props"] as? [String: Any] ?? entry["props"] as? [String: Any] ?? [:]
                let metadata = entry["metadata"] as? [[String: Any]] ?? []
                objects.append(Object(id: id, type: type, info: info, properties: properties, metadata: metadata))
            }
        }
        guard !objects.isEmpty || !json.allSatisfy(\.isWhitespace) else {
            throw SandboxError.commandFailed("pw-dump printed nothing")
        }
        self.objects = objects
    }

    /// The top-level JSON values of `text`, in order: brackets and braces counted outside strings.
    static func documents(in text: String) -> [Substring] {
        var documents: [Substring] = []
        var depth = 0
        var inString = false
        var escaped = false
        var start = text.startIndex
        for index in text.indices {
            let character = text[index]
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"": inString = true
            case "[", "{":
                if depth == 0 { start = index }
                depth += 1
            case "]", "}":
                depth -= 1
                if depth == 0 { documents.append(text[start...index]) }
            default: break
            }
        }
        if depth != 0 { documents.append(text[start...]) }
        return documents
    }

    public var nodes: [Object] { objects.filter { $0.type == "PipeWire:Interface:Node" } }
    public var links: [Object] { objects.filter { $0.type == "PipeWire:Interface:Link" } }
    public var ports: [Object] { objects.filter { $0.type == "PipeWire:Interface:Port" } }

    public func node(named name: String) -> Object? { nodes.first { $0.name == name } }

    public func ports(ofNode id: UInt32) -> [Object] {
        ports.filter { $0.property("node.id") == String(id) }
    }

    /// Links as (output node, input node) ids, from the links' info.
    public var nodeLinks: [(output: UInt32, input: UInt32)] {
        links.compactMap { link in
            guard let output = (link.info["output-node-id"] as? NSNumber)?.uint32Value,
                let input = (link.info["input-node-id"] as? NSNumber)?.uint32Value
            else { return nil }
            return (output, input)
        }
    }

    /// A link of a node: the node at its other end, its ports, and the program of the client
    /// that made it (`application.process.binary`: `wireplumber`, `audiosessiond`, ...).
    public struct OwnedLink: Sendable, Hashable {
        public let peer: String
        public let outputPort: UInt32
        public let inputPort: UInt32
        public let owner: String?
    }

    /// Every link to or from the node named `name`, with who made it.
    public func ownedLinks(of name: String) -> [OwnedLink] {
        guard let node = node(named: name) else { return [] }
        let names = Dictionary(nodes.map { ($0.id, $0.name ?? "\($0.id)") }) { first, _ in first }
        let clients = clientPrograms
        return links.compactMap { link in
            guard let output = (link.info["output-node-id"] as? NSNumber)?.uint32Value,
                let input = (link.info["input-node-id"] as? NSNumber)?.uint32Value,
                let outputPort = (link.info["output-port-id"] as? NSNumber)?.uint32Value,
                let inputPort = (link.info["input-port-id"] as? NSNumber)?.uint32Value,
                output == node.id || input == node.id
            else { return nil }
            let peer = output == node.id ? input : output
            let owner = link.property("client.id").flatMap(UInt32.init).flatMap { clients[$0] }
            return OwnedLink(peer: names[peer] ?? "\(peer)", outputPort: outputPort, inputPort: inputPort, owner: owner)
        }
    }

    /// Each client's program (or name), by id.
    public var clientPrograms: [UInt32: String] {
        Dictionary(objects.filter { $0.type == "PipeWire:Interface:Client" }.map {
            ($0.id, $0.property("application.process.binary") ?? $0.property("application.name") ?? "client \($0.id)")
        }) { first, _ in first }
    }

    /// The value of a metadata key (subject 0 unless given) in the metadata named `name`.
    public func metadataValue(_ name: String, key: String, subject: UInt32 = 0) -> String? {
        guard let object = objects.first(where: {
            $0.type == "PipeWire:Interface:Metadata" && $0.property("metadata.name") == name
        }) else { return nil }
        for entry in object.metadata
        where (entry["subject"] as? NSNumber)?.uint32Value == subject && entry["key"] as? String == key {
            switch entry["value"] {
            case let string as String: return string
            case let number as NSNumber: return number.stringValue
            case let value? where JSONSerialization.isValidJSONObject(value):
                if let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) {
                    return String(decoding: data, as: UTF8.self)
                }
                return "\(value)"
            case let value?: return "\(value)"
            case nil: return nil
            }
        }
        return nil
    }
}

/// `pw-link -l -I` output, parsed: which output port feeds which input port.
public struct PortLinkListing: Sendable {
    public struct Entry: Sendable, Equatable {
        public let linkID: UInt32
        public let outputPortID: UInt32
        public let outputPort: String
        public let inputPortID: UInt32
        public let inputPort: String
    }

    public let entries: [Entry]

    public init(output: String) {
        var entries: [Entry] = []
        var current: (id: UInt32, name: String)?
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 4, fields[1] == "|->", let linkID = UInt32(fields[0]), let port = UInt32(fields[2]),
                let current
            {
                entries.append(
                    Entry(
                        linkID: linkID, outputPortID: current.id, outputPort: current.name, inputPortID: port,
                        inputPort: fields[3...].joined(separator: " ")))
            } else if fields.count >= 2, fields[1] != "|<-", fields[1] != "|->", let id = UInt32(fields[0]) {
                current = (id, fields[1...].joined(separator: " "))
            }
        }
        self.entries = entries
    }
}

/// `pw-cli ls TYPE` output, parsed: every global of that type with its properties. It lists
/// what the registry announces and binds nothing, so it shows a metadata object with no entries
/// (which `pw-dump` leaves out) and never waits on the object's implementer.
public struct RegistryListing: Sendable {
    public struct Global: Sendable, Equatable {
        public let id: UInt32
        public let properties: [String: String]
    }

    public let globals: [Global]

    public init(output: String) {
        var globals: [Global] = []
        var current: (id: UInt32, properties: [String: String])?
        for line in output.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("id "), let id = text.dropFirst(3).split(separator: ",").first.flatMap({ UInt32($0) }) {
                if let current { globals.append(Global(id: current.id, properties: current.properties)) }
                current = (id, [:])
            } else if let equals = text.range(of: " = "), current != nil {
                let key = String(text[..<equals.lowerBound])
                let value = text[equals.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                current?.properties[key] = value
            }
        }
        if let current { globals.append(Global(id: current.id, properties: current.properties)) }
        self.globals = globals
    }
}

extension PrivatePipeWire {
    /// Which programs provide a metadata object named `name`, one entry per object (sorted),
    /// from the registry (`pw-cli ls Metadata`) and the clients' programs in `dump` (a new
    /// `pw-dump` when none is given).
    public func metadataProviders(named name: String, in dump: PipeWireDump? = nil) throws -> [String] {
        let clients = try (dump ?? self.dump()).clientPrograms
        return RegistryListing(output: try run("pw-cli", ["ls", "Metadata"])).globals
            .filter { $0.properties["metadata.name"] == name }
            .map { global in global.properties["client.id"].flatMap(UInt32.init).flatMap { clients[$0] } ?? "the server" }
            .sorted()
    }

    /// The nodes the ports of `nodeName` are linked to, by name, from `pw-link` (an
    /// independent oracle): e.g. `["speaker"]` while a stream plays there, `[]` while held.
    /// The daemon's level meters (`audiosession-meter-*`, listening to a stream) are not where
    /// it plays, and are left out.
    public func linkedDevices(of nodeName: String) throws -> Set<String> {
        var devices = Set<String>()
        // `node.name:port.name`: a node's name may have colons of its own (WirePlumber's stand-in
        // for a headset's microphone keeps its address's), a port's has none.
        func node(of port: String) -> String? { port.lastIndex(of: ":").map { String(port[..<$0]) } }
        for entry in try portLinks() {
            let output = node(of: entry.outputPort)
            let input = node(of: entry.inputPort)
            if [output, input].contains(where: { $0?.hasPrefix("audiosession-meter-") == true }) { continue }
            if output == nodeName, let input { devices.insert(input) }
            if input == nodeName, let output { devices.insert(output) }
        }
        return devices
    }

    /// Waits until `nodeName` is linked to exactly `devices` (empty: unlinked).
    public func waitUntilLinked(_ nodeName: String, to devices: Set<String>, timeout: Duration = .seconds(10)) throws {
        try waitUntil(
            timeout: timeout,
            "\(nodeName) is linked to \(devices.sorted()) (now: \((try? linkedDevices(of: nodeName))?.sorted() ?? []))"
        ) {
            try linkedDevices(of: nodeName) == devices
        }
    }
}
