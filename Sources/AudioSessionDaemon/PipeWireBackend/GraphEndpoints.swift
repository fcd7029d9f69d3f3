#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PipeWireGraph
import SessionPolicy

/// Reads what the linking policy needs out of a graph snapshot: which nodes are streams,
/// which are devices, what a stream asked for, and what the `default` metadata says.
enum GraphEndpoints {
    static let defaultMetadata = "default"
    static let sinkKeys = DefaultKeys(effective: "default.audio.sink", configured: "default.configured.audio.sink")
    static let sourceKeys = DefaultKeys(effective: "default.audio.source", configured: "default.configured.audio.source")
    /// Every choice of the user's a session manager keeps in the `default` metadata (the
    /// camera's too: WirePlumber restores it with the others).
    static let configuredKeys: Set<String> = [sinkKeys.configured, sourceKeys.configured, "default.configured.video.source"]

    struct DefaultKeys {
        let effective: String
        let configured: String
    }

    static func keys(for direction: StreamDirection) -> DefaultKeys {
        direction == .playback ? sinkKeys : sourceKeys
    }

    /// Whether a client is one of this process's own connections (the main one, the export one).
    static func isOwn(_ client: Client?) -> Bool {
        client?.pid == getpid()
    }

    /// The direction of an application stream, or nil if the node is not an audio stream (or is
    /// one of our level meters: the graph links those itself).
    static func streamDirection(of node: Node) -> StreamDirection? {
        guard node.properties["audiosession.meter"] != "true" else { return nil }
        switch node.mediaClass {
        case "Stream/Output/Audio": return .playback
        case "Stream/Input/Audio": return .capture
        default: return nil
        }
    }

    /// Whether a capture stream records what plays (a sink's monitor) rather than a
    /// microphone: it says so (`stream.capture.sink`, a pulse monitor or peak stream), or the
    /// node it asks for is a sink.
    static func capturesMonitor(_ node: Node, in snapshot: GraphSnapshot) -> Bool {
        guard streamDirection(of: node) == .capture else { return false }
        if node.properties["stream.capture.sink"] == "true" || node.properties["stream.monitor"] == "true" { return true }
        guard let target = request(for: node, direction: .capture, in: snapshot).requestedTarget else { return false }
        if target.hasSuffix(".monitor") { return true }
        let named = snapshot.node(named: target) ?? UInt32(target).flatMap { snapshot.nodes[$0] }
        return named.map { endpointDirection(of: $0) == .playback } ?? false
    }

    /// The direction a device node serves, or nil if it is not an audio sink or source.
    static func endpointDirection(of node: Node) -> StreamDirection? {
        switch node.mediaClass {
        case "Audio/Sink", "Audio/Duplex": .playback
        case "Audio/Source", "Audio/Source/Virtual": .capture
        default: nil
        }
    }

    static func endpoints(in snapshot: GraphSnapshot) -> [LinkEndpoint] {
        snapshot.nodes.values.compactMap { node in
            guard let direction = endpointDirection(of: node) else { return nil }
            let priority = Int(node.properties["priority.session"] ?? "")
                ?? Int(node.properties["priority.driver"] ?? "") ?? 0
            return LinkEndpoint(
                id: node.id, name: node.name, serial: node.serial, direction: direction, priority: priority)
        }
    }

    /// What a stream asks for: a target named in the `default` metadata by a mixer, else by
    /// its own `target.object`, else by the legacy `node.target`.
    static func request(for node: Node, direction: StreamDirection, in snapshot: GraphSnapshot) -> StreamLinkRequest {
        let metadata = snapshot.metadata[defaultMetadata]
        let fromMetadata = metadata?.value(for: "target.object", subject: node.id)
            ?? metadata?.value(for: "target.node", subject: node.id)
        let target = [fromMetadata, node.properties["target.object"], node.properties["node.target"]]
            .compactMap { $0.map(unquoted) }
            .first { !$0.isEmpty && $0 != "-1" }
        let dontReconnect = node.properties["node.dont-reconnect"] == "true"
        return StreamLinkRequest(direction: direction, requestedTarget: target, dontReconnect: dontReconnect)
    }

    /// The device name in a `default` metadata value: `{"name":"speaker"}` (Spa:String:JSON).
    static func deviceName(inMetadataValue value: String?) -> String? {
        guard let value, let object = try? JSONDecoder().decode(NamedValue.self, from: Data(value.utf8)) else { return nil }
        return object.name
    }

    /// `{"name": "..."}`; any other key is ignored.
    private struct NamedValue: Decodable {
        var name: String?
    }

    static func metadataValue(forDeviceNamed name: String) -> String {
        let escaped = name.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        return "{\"name\":\"\(escaped)\"}"
    }

    private static func unquoted(_ value: String) -> String {
        value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? String(value.dropFirst().dropLast()) : value
    }
}
