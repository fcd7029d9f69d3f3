/// Another client of the audio server, as far as telling session managers apart needs: its
/// name and program, whether it provides the `default` metadata (a session manager's job: the
/// user's chosen devices live there), and what it says it does.
public struct GraphPeer: Hashable, Sendable {
    /// The server's id of the client.
    public var id: UInt32
    /// `application.name`.
    public var name: String?
    /// `application.process.binary`.
    public var binary: String?
    /// It implements the `default` metadata.
    public var providesDefaultMetadata: Bool
    /// The process at the other end of its socket (`pipewire.sec.pid`): one program's
    /// connections share it (WirePlumber and "WirePlumber [export]").
    public var processID: Int32?
    /// `session.services`: what a session manager says it does, once it has loaded everything
    /// (WirePlumber 0.5: `audio`, `bluetooth.audio`, `policy.device.profile`,
    /// `policy.linking.standard`, ...); nil when it said nothing (yet, or ever: WirePlumber 0.4).
    public var services: Set<String>?

    public init(
        id: UInt32, name: String?, binary: String?, providesDefaultMetadata: Bool = false, processID: Int32? = nil,
        services: Set<String>? = nil
    ) {
        self.id = id
        self.name = name
        self.binary = binary
        self.providesDefaultMetadata = providesDefaultMetadata
        self.processID = processID
        self.services = services
    }

    /// Reads `session.services` as WirePlumber writes it: `[audio, api.alsa, ...]`.
    public static func services(from value: String?) -> Set<String>? {
        guard let value else { return nil }
        let names = value.split(whereSeparator: { "[], \"".contains($0) }).map(String.init)
        return Set(names)
    }

    /// What the logs and `status` call it.
    public var displayName: String { name ?? binary ?? "client \(id)" }
}
