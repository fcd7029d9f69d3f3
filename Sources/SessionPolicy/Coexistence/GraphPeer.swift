/// Another client of the audio server, as far as telling session managers apart needs: its
/// name and program, and whether it provides the `default` metadata (a session manager's
/// job: the user's chosen devices live there).
public struct GraphPeer: Hashable, Sendable {
    /// The server's id of the client.
    public var id: UInt32
    /// `application.name`.
    public var name: String?
    /// `application.process.binary`.
    public var binary: String?
    /// It implements the `default` metadata.
    public var providesDefaultMetadata: Bool

    public init(id: UInt32, name: String?, binary: String?, providesDefaultMetadata: Bool = false) {
        self.id = id
        self.name = name
        self.binary = binary
        self.providesDefaultMetadata = providesDefaultMetadata
    }

    /// What the logs and `status` call it.
    public var displayName: String { name ?? binary ?? "client \(id)" }
}
