/// A client connection (an application, pipewire-pulse's per-pulse-client object, a daemon).
public struct Client: Sendable, Equatable, Identifiable {
    public var id: GlobalID
    /// `application.process.id` (`pipewire.sec.pid` as fallback: the kernel's view).
    public var pid: Int32?
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
