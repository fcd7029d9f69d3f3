/// Who may do what with an explicit session, from credentials the system vouches for — never
/// from what a caller says. An app names itself when it creates a session and a stream names
/// its session in a property; either claim alone would let any app take another's record
/// permission or put its streams into another app's call.
public enum SessionOwnership {
    /// The facts about a session's owner (the bus peer that created it).
    public struct Owner: Hashable, Sendable {
        public var pid: Int32
        /// The sandbox's app id (Flatpak), read from the peer's process: nil when unsandboxed.
        public var sandboxAppID: String?
        /// The app id its process vouches for (``AppIdentity/appID``): nil when unknown.
        public var appID: String?

        public init(pid: Int32, sandboxAppID: String?, appID: String? = nil) {
            self.pid = pid
            self.sandboxAppID = sandboxAppID
            self.appID = appID
        }
    }

    /// The app a session's record permission (and everything keyed by app) belongs to: what
    /// the system vouches for — its sandbox's app id, its desktop app unit's, its executable's
    /// name — whatever name it gives. The given name is only its label. A python script that
    /// calls itself zoom is python3, and gets python3's permission, never zoom's. Only when no
    /// process is known does the name stand.
    public static func app(named requested: String, by owner: Owner) -> String {
        if let appID = owner.sandboxAppID, !appID.isEmpty { return appID }
        if let appID = owner.appID, !appID.isEmpty { return appID }
        return requested
    }

    /// Whether a stream that names a session may join it: it comes from the owner's process or
    /// one of its descendants (`lineage`: the stream's process first, then its ancestors), or
    /// from the same sandboxed app. A stream whose process is unknown may not.
    public static func mayJoin(streamLineage lineage: [Int32], streamSandboxAppID: String?, owner: Owner) -> Bool {
        if lineage.contains(owner.pid) { return true }
        if let appID = owner.sandboxAppID, !appID.isEmpty, streamSandboxAppID == appID { return true }
        return false
    }

    /// Settings that change other apps' audio (silent mode) or their permissions: the user's,
    /// never a sandboxed app's.
    public static func mayChangeSettings(_ caller: Owner) -> Bool {
        caller.sandboxAppID?.isEmpty ?? true
    }
}
