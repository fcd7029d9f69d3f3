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

        public init(pid: Int32, sandboxAppID: String?) {
            self.pid = pid
            self.sandboxAppID = sandboxAppID
        }
    }

    /// The app a session's record permission (and everything keyed by app) belongs to: a
    /// sandboxed app is its app id whatever name it gives; an unsandboxed one is the name it
    /// gives (it runs as the user, who may grant any permission anyway: only a sandbox is a
    /// boundary worth keeping).
    public static func app(named requested: String, by owner: Owner) -> String {
        if let appID = owner.sandboxAppID, !appID.isEmpty { return appID }
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
