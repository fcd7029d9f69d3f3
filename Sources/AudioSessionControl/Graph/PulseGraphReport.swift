import Foundation
import PulseAudioServer

/// What a pure PulseAudio server has, as `audiosessionctl graph` shows it there: sinks and
/// sources with their ports, streams with their roles and where they play, and the policy
/// modules (PulseAudio's own role modules, the daemon's parking devices).
struct PulseGraphReport: Codable, Equatable {
    struct PortEntry: Codable, Equatable {
        var name: String
        var description: String
        var available: String
        var type: UInt32
        var active: Bool
    }

    struct DeviceEntry: Codable, Equatable {
        var index: UInt32
        var kind: String
        var name: String
        var description: String
        var state: String
        var sampleRate: Int
        var configuredLatencyMicroseconds: UInt64
        var isDefault: Bool
        var ports: [PortEntry]
    }

    struct StreamEntry: Codable, Equatable {
        var index: UInt32
        var kind: String
        var role: String?
        var application: String?
        var processID: String?
        var device: String?
        var volumePercent: [Int]
        var muted: Bool
        var corked: Bool
    }

    struct ModuleEntry: Codable, Equatable {
        var index: UInt32
        var name: String
        var argument: String
    }

    var server: String
    var defaultSink: String?
    var defaultSource: String?
    var devices: [DeviceEntry]
    var streams: [StreamEntry]
    /// The modules that act on streams: role-cork, role-ducking, stream-restore, null sinks.
    var policyModules: [ModuleEntry]

    init(_ snapshot: PulseSnapshot) {
        server = "\(snapshot.server.serverName) \(snapshot.server.serverVersion)"
        defaultSink = snapshot.server.defaultSinkName
        defaultSource = snapshot.server.defaultSourceName
        let sinks = snapshot.sinks.values.sorted { $0.index < $1.index }
        let sources = snapshot.sources.values.filter { $0.monitorOf == nil }.sorted { $0.index < $1.index }
        devices = (sinks + sources).map { device in
            DeviceEntry(
                index: device.index, kind: device.kind.rawValue, name: device.name, description: device.description,
                state: device.state.rawValue, sampleRate: device.sampleRate, configuredLatencyMicroseconds: device.configuredLatency,
                isDefault: device.name == (device.kind == .sink ? snapshot.server.defaultSinkName : snapshot.server.defaultSourceName),
                ports: device.ports.map {
                    PortEntry(
                        name: $0.name, description: $0.description, available: $0.availability.rawValue, type: $0.type,
                        active: $0.name == device.activePort)
                })
        }
        let streams = snapshot.sinkInputs.values.sorted { $0.index < $1.index } + snapshot.sourceOutputs.values.sorted { $0.index < $1.index }
        self.streams = streams.map { stream in
            StreamEntry(
                index: stream.index, kind: stream.kind.rawValue, role: stream.properties["media.role"],
                application: stream.properties["application.name"], processID: stream.properties["application.process.id"],
                device: stream.kind == .sinkInput ? snapshot.sinks[stream.device]?.name : snapshot.sources[stream.device]?.name,
                volumePercent: stream.channelVolumes.map { Int((100 * Double($0) / Double(PulseVolume.norm)).rounded()) },
                muted: stream.muted, corked: stream.corked)
        }
        let policy: Set<String> = ["module-role-cork", "module-role-ducking", "module-stream-restore", "module-null-sink", "module-null-source"]
        policyModules = snapshot.modules.values.filter { policy.contains($0.name) }.sorted { $0.index < $1.index }
            .map { ModuleEntry(index: $0.index, name: $0.name, argument: $0.argument) }
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    func text() -> String {
        var lines = ["PulseAudio server: \(server)", ""]
        for kind in ["sink", "source"] {
            lines.append(kind == "sink" ? "Sinks:" : "Sources:")
            for device in devices where device.kind == kind {
                let latency = String(format: "%.1f ms", Double(device.configuredLatencyMicroseconds) / 1000)
                lines.append("  \(device.isDefault ? "*" : " ") \(device.index) \(device.name) — \(device.description) [\(device.state), \(device.sampleRate) Hz, latency \(latency)]")
                for port in device.ports {
                    lines.append("        \(port.active ? "▸" : " ") \(port.name) — \(port.description) (available: \(port.available), type \(port.type))")
                }
            }
            lines.append("")
        }
        lines.append("Streams:")
        for stream in streams {
            let flags = [stream.muted ? "muted" : nil, stream.corked ? "corked" : nil].compactMap { $0 }.joined(separator: ", ")
            let volume = stream.volumePercent.map { "\($0)%" }.joined(separator: "/")
            lines.append("    \(stream.kind) \(stream.index) role=\(stream.role ?? "none") app=\(stream.application ?? "?") → \(stream.device ?? "?") volume \(volume)\(flags.isEmpty ? "" : " (\(flags))")")
        }
        lines.append("")
        lines.append("Policy modules:")
        for module in policyModules { lines.append("    \(module.index) \(module.name) \(module.argument)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
