/// One process in a stream's ancestry, as the system reports it.
public struct ProcessEntry: Hashable, Sendable {
    public var pid: Int32
    /// The executable's path (`/proc/PID/exe`); empty when it cannot be read.
    public var executable: String

    public init(pid: Int32, executable: String) {
        self.pid = pid
        self.executable = executable
    }
}

/// What the system knows about the app behind a stream: the facts an identity is made of.
public struct AppFacts: Hashable, Sendable {
    /// The sandbox's app id (Flatpak, or the portal's `pipewire.access.portal.app_id`).
    public var sandboxAppID: String?
    /// The stream's process first, then its parent, and so on up to (not including) init.
    public var lineage: [ProcessEntry]
    /// The audio-server connection the stream came on: the last resort when nothing else is known.
    public var connection: UInt32

    public init(sandboxAppID: String? = nil, lineage: [ProcessEntry] = [], connection: UInt32) {
        self.sandboxAppID = sandboxAppID
        self.lineage = lineage
        self.connection = connection
    }
}

/// An app as the system knows it: all the streams of one app share one implicit session,
/// however many connections they come on (the ALSA plugin opens one per PCM; a browser
/// opens its microphone on a separate client, from another of its processes).
public struct AppIdentity: Hashable, Sendable, CustomStringConvertible {
    public let key: String

    public init(key: String) { self.key = key }

    public var description: String { key }

    /// The sandbox's app id when the app is one (`app-id:` identities).
    public var sandboxAppID: String? {
        key.hasPrefix(Self.appIDPrefix) ? String(key.dropFirst(Self.appIDPrefix.count)) : nil
    }

    private static let appIDPrefix = "app-id:"

    /// - A sandboxed app is its app id: every process of it, whatever its binary.
    /// - Otherwise the topmost ancestor running the same executable as the stream's process:
    ///   a browser's audio and content processes are children of its main process, while two
    ///   instances started side by side (from a shell, a launcher, a test) stay two apps.
    /// - Without a process, its connection.
    public init(_ facts: AppFacts) {
        if let appID = facts.sandboxAppID, !appID.isEmpty {
            self.key = Self.appIDPrefix + appID
            return
        }
        guard let first = facts.lineage.first else {
            self.key = "connection:\(facts.connection)"
            return
        }
        var root = first
        if !first.executable.isEmpty {
            for ancestor in facts.lineage.dropFirst() {
                guard ancestor.executable == first.executable else { break }
                root = ancestor
            }
        }
        self.key = "process:\(root.pid)"
    }
}
