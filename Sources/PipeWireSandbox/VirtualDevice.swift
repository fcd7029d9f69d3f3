/// A null sink or source declared in the sandbox's conf, with DSP ports configured by the
/// adapter itself (`adapter.auto-port-config`), since the sandbox runs no session manager.
public struct VirtualDevice: Sendable, Equatable {
    public enum Kind: String, Sendable { case sink = "Audio/Sink", source = "Audio/Source/Virtual" }

    public var name: String
    public var description: String
    public var kind: Kind
    public var positions: [String]
    /// `priority.session`, when set: which device a session manager prefers by default.
    public var priority: Int?
    /// `node.always-process`: it runs with nothing linked, as a device in use does. PipeWire 1.4
    /// applies `Props` (a mute) to a running null device only.
    public var alwaysProcess: Bool

    public init(
        name: String, description: String? = nil, kind: Kind = .sink, positions: [String] = ["FL", "FR"], priority: Int? = nil,
        alwaysProcess: Bool = false
    ) {
        self.alwaysProcess = alwaysProcess
        self.name = name
        self.description = description ?? name
        self.kind = kind
        self.positions = positions
        self.priority = priority
    }

    /// "speaker" and "headphones" sinks, and a mono "mic" source.
    public static let standard: [VirtualDevice] = [
        VirtualDevice(name: "speaker", description: "Speaker"),
        VirtualDevice(name: "headphones", description: "Headphones"),
        VirtualDevice(name: "mic", description: "Microphone", kind: .source, positions: ["MONO"]),
    ]

    /// The SPA-JSON arguments of the `adapter` factory for this device.
    public var adapterArguments: String {
        // Monitor ports are a sink's loopback outputs and a virtual source's capture outputs.
        return """
            { factory.name = support.null-audio-sink node.name = "\(name)" node.description = "\(description)" \
            media.class = "\(kind.rawValue)" audio.position = [ \(positions.joined(separator: " ")) ] \
            \(priority.map { "priority.session = \($0) " } ?? "")\
            \(alwaysProcess ? "node.always-process = true " : "")\
            object.linger = true \
            adapter.auto-port-config = { mode = dsp monitor = true position = preserve } }
            """
    }
}
