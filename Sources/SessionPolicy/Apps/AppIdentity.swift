/// One process in a stream's ancestry, as the system reports it.
public struct ProcessEntry: Hashable, Sendable {
    public var pid: Int32
    /// The executable's path (`/proc/PID/exe`); empty when it cannot be read.
    public var executable: String
    /// Its process group (the job a shell or a launcher started it in); nil when unknown.
    public var processGroup: Int32?

    public init(pid: Int32, executable: String, processGroup: Int32? = nil) {
        self.pid = pid
        self.executable = executable
        self.processGroup = processGroup
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
    /// - A sound tool (``ProgramKind/soundTool``: `aplay`, `paplay`) that a program ran in its
    ///   own job is that program's helper: it counts from that program (``helperOwner(_:)``).
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
        guard !facts.lineage.isEmpty else {
            self.init(key: "connection:\(facts.connection)")
            return
        }
        let start = Self.helperOwner(facts.lineage) ?? 0
        var root = facts.lineage[start]
        if !root.executable.isEmpty {
            for ancestor in facts.lineage.dropFirst(start + 1) {
                guard ancestor.executable == root.executable else { break }
                root = ancestor
            }
        }
        let name = root.programName
        self.init(key: "process:\(root.pid)", appID: name.isEmpty ? "pid-\(root.pid)" : name)
    }
}

extension AppIdentity {
    /// Where in `lineage` the program is that ran its first process as a helper, when that
    /// process is a sound tool another process of its job started: the topmost ancestor in the
    /// tool's process group that is a program (a speech module's `sh -c "… | aplay"` counts
    /// from the speech server that runs the module; a script's `aplay` from the interpreter),
    /// else the topmost shell there (a shell loop playing one file after another).
    ///
    /// A tool that leads its own group was started as a job of its own — from a terminal, a
    /// launcher that detaches, a test — and is its own app. A group is a job's, so the walk
    /// never leaves it for whoever started the job. nil when the first process is no helper.
    public static func helperOwner(_ lineage: [ProcessEntry]) -> Int? {
        guard let tool = lineage.first, ProgramKind(programName: tool.programName) == .soundTool,
              let group = tool.processGroup, group != tool.pid
        else { return nil }
        var program: Int?
        var topmost: Int?
        for (index, ancestor) in lineage.enumerated().dropFirst() {
            guard ancestor.processGroup == group else { break }
            topmost = index
            if ProgramKind(programName: ancestor.programName) == .program { program = index }
        }
        return program ?? topmost
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
