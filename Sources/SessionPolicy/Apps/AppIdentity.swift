/// One process in a stream's ancestry, as the system reports it.
public struct ProcessEntry: Hashable, Sendable {
    public var pid: Int32
    /// The executable's path (`/proc/PID/exe`); empty when it cannot be read.
    public var executable: String

    public init(pid: Int32, executable: String) {
        self.pid = pid
        self.executable = executable
    }

    /// The executable's file name (`python3`, `aplay`); empty when it cannot be read.
    public var programName: String { executable.split(separator: "/").last.map(String.init) ?? "" }
}

/// What the system knows about the app behind a stream: the facts an identity is made of.
public struct AppFacts: Hashable, Sendable {
    /// The sandbox's app id (Flatpak, or the portal's `pipewire.access.portal.app_id`).
    public var sandboxAppID: String?
    /// The app id of the systemd unit a desktop launched it in (``AppScope`` in AppProcesses).
    public var appScopeID: String?
    /// The stream's process first, then its parent, and so on up to (not including) init.
    public var lineage: [ProcessEntry]
    /// The audio-server connection the stream came on: the last resort when nothing else is known.
    public var connection: UInt32

    public init(sandboxAppID: String? = nil, appScopeID: String? = nil, lineage: [ProcessEntry] = [], connection: UInt32) {
        self.sandboxAppID = sandboxAppID
        self.appScopeID = appScopeID
        self.lineage = lineage
        self.connection = connection
    }
}

/// An app as the system knows it: all the streams of one app share one implicit session,
/// however many connections they come on (the ALSA plugin opens one per PCM; a browser
/// opens its microphone on a separate client, from another of its processes).
///
/// Its ``appID`` is what the system vouches for, never a name the app gives: record
/// permission is keyed by it, and a process that calls itself another app is still itself.
public struct AppIdentity: Hashable, Sendable, CustomStringConvertible {
    public let key: String
    /// The app id the system vouches for: the sandbox's app id, else the desktop's app unit's
    /// id, else the file name of the executable the app's topmost process runs; nil when no
    /// process is known (nothing vouches for a bare connection).
    public let appID: String?

    public init(key: String, appID: String? = nil) {
        self.key = key
        self.appID = appID
    }

    public var description: String { key }

    /// The sandbox's app id when the app is one (`app-id:` identities).
    public var sandboxAppID: String? {
        key.hasPrefix(Self.appIDPrefix) ? String(key.dropFirst(Self.appIDPrefix.count)) : nil
    }

    private static let appIDPrefix = "app-id:"

    /// - A sandboxed app is its app id: every process of it, whatever its binary.
    /// - An app a desktop launched in its own systemd unit is that unit's app id: the program
    ///   and every helper it starts.
    /// - Otherwise the topmost ancestor running the same executable as the stream's process:
    ///   a browser's audio and content processes are children of its main process, while two
    ///   instances started side by side (from a shell, a launcher, a test) stay two apps.
    /// - Without a process, its connection.
    public init(_ facts: AppFacts) {
        if let appID = facts.sandboxAppID, !appID.isEmpty {
            self.init(key: Self.appIDPrefix + appID, appID: appID)
            return
        }
        if let appID = facts.appScopeID, !appID.isEmpty {
            self.init(key: "app-scope:" + appID, appID: appID)
            return
        }
        guard let first = facts.lineage.first else {
            self.init(key: "connection:\(facts.connection)")
            return
        }
        var root = first
        if !first.executable.isEmpty {
            for ancestor in facts.lineage.dropFirst() {
                guard ancestor.executable == first.executable else { break }
                root = ancestor
            }
        }
        let name = root.programName
        self.init(key: "process:\(root.pid)", appID: name.isEmpty ? "pid-\(root.pid)" : name)
    }
}

extension AppFacts {
    /// A stream's properties with what the system vouches for about its app laid over them (and
    /// over any the stream claims with the same names), for the rules to match:
    /// - `audiosession.app`: its app id (``AppIdentity/appID`` of `identity`, the identity these
    ///   facts make);
    /// - `audiosession.ancestors`: the file names of the executables its process descends from,
    ///   nearest first, separated by spaces — so a rule can name the app that started a helper
    ///   (a speech module that plays each chunk with `aplay`).
    public func vouching(_ properties: [String: String], as identity: AppIdentity) -> [String: String] {
        var vouched = properties
        if let appID = identity.appID { vouched["audiosession.app"] = appID }
        let ancestors = lineage.dropFirst().map(\.programName).filter { !$0.isEmpty }
        if !ancestors.isEmpty { vouched["audiosession.ancestors"] = ancestors.joined(separator: " ") }
        return vouched
    }
}
