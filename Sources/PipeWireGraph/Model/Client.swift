/// A client connection (an application, pipewire-pulse's per-pulse-client object, a daemon).
public struct Client: Sendable, Equatable, Identifiable {
    public var id: GlobalID
    /// `application.process.id` (`pipewire.sec.pid` as fallback: the kernel's view).
    public var pid: Int32?
    /// `pipewire.sec.pid`: the process at the other end of the client's socket, as the kernel
    /// says (a client cannot set it). For pipewire-pulse's per-pulse-client connections it is
    /// pipewire-pulse itself.
    public var securityPID: Int32? { properties["pipewire.sec.pid"].flatMap { Int32($0) } }
    /// `application.process.id`: the pid the client states (any client can state any).
    public var statedPID: Int32? { properties["application.process.id"].flatMap { Int32($0) } }
    /// `object.serial`: unlike `id`, never given to another connection while the server runs.
    public var serial: UInt64? { properties["object.serial"].flatMap { UInt64($0) } }
    public var applicationName: String?
    public var processBinary: String?
    public var properties: [String: String]

    public init(
        id: GlobalID, pid: Int32? = nil, applicationName: String? = nil, processBinary: String? = nil,
        properties: [String: String] = [:]
    ) {
        self.id = id
        self.pid = pid
        self.applicationName = applicationName
        self.processBinary = processBinary
        self.properties = properties
    }
}
