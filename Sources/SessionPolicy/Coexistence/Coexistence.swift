/// Living beside another session manager: whether the daemon links streams, and what it tells
/// the user when both would act on the same streams.
///
/// In `auto` mode the daemon links only while no other session manager is present — a
/// WirePlumber (or pipewire-media-session) client, or any other client that provides the
/// `default` metadata — and hands linking over the moment one appears: two linkers fight over
/// the same streams, and WirePlumber 0.5 does not re-create links another client removed, so a
/// daemon that linked beside it would leave streams silent when it stops.
public struct Coexistence: Hashable, Sendable {
    public let mode: LinkingMode
    /// The other session managers present now, by client id.
    public private(set) var managers: [UInt32: GraphPeer] = [:]
    /// Whether the daemon links streams now.
    public private(set) var linksStreams: Bool
    /// The role-based policy conflict was reported already (once per run).
    private var rolePolicyReported = false

    public init(mode: LinkingMode) {
        self.mode = mode
        linksStreams = mode != .never
    }

    /// Programs known to link streams and manage devices.
    static let sessionManagerNames: Set<String> = ["wireplumber", "pipewire-media-session", "media-session"]

    /// Whether a client is a session manager: a known one by name or program, or one that
    /// provides the `default` metadata.
    public static func isSessionManager(_ peer: GraphPeer) -> Bool {
        if peer.providesDefaultMetadata { return true }
        for value in [peer.name, peer.binary].compactMap({ $0?.lowercased() }) {
            // WirePlumber names its second connection "WirePlumber [export]".
            let base = value.split(separator: " ").first.map(String.init) ?? value
            if sessionManagerNames.contains(base) { return true }
        }
        return false
    }

    /// A change of who links.
    public struct LinkingChange: Hashable, Sendable {
        public var linksStreams: Bool
        /// Why, for the log and `status`.
        public var reason: String
    }

    /// The graph's other clients now (every one but the daemon's own). Returns a change when
    /// the daemon starts or stops linking because of them.
    public mutating func peersChanged(_ peers: [GraphPeer]) -> LinkingChange? {
        managers = Dictionary(peers.filter(Self.isSessionManager).map { ($0.id, $0) }) { first, _ in first }
        let links: Bool
        switch mode {
        case .always: links = true
        case .never: links = false
        case .auto: links = managers.isEmpty
        }
        guard links != linksStreams else { return nil }
        linksStreams = links
        return LinkingChange(linksStreams: links, reason: reason)
    }

    /// The mode and what it means now, for the log and `status`.
    public var reason: String {
        switch (mode, linksStreams) {
        case (.always, _): return "linking streams (--linking=always)"
        case (.never, _): return "not linking (--linking=never)"
        case (.auto, true): return "linking streams: no other session manager (--linking=auto)"
        case (.auto, false): return "not linking: \(managerNames) links streams (--linking=auto)"
        }
    }

    /// The other session managers by name, one per program.
    public var managerNames: String {
        let names = Set(managers.values.map { $0.displayName.split(separator: " ").first.map(String.init) ?? $0.displayName })
        return names.isEmpty ? "nobody" : names.sorted().joined(separator: ", ")
    }

    /// A stream was seen linked to a node of another manager's role-based policy (WirePlumber's
    /// role loopbacks, `policy.role-based.target`): that policy ducks and corks by role, as the
    /// daemon does, so the same stream would be ducked twice and interrupted by both. Returns
    /// the warning to log, the first time only.
    public mutating func rolePolicySeen(stream: String, target: String) -> String? {
        guard !rolePolicyReported else { return nil }
        rolePolicyReported = true
        return """
            another session manager's role-based policy is on: stream '\(stream)' plays through its role node \
            '\(target)', which ducks and corks by media role as audiosessiond does, so streams would be ducked \
            twice and interrupted by both. Turn it off: copy contrib/wireplumber/wireplumber.conf.d/\
            90-audiosession.conf to ~/.config/wireplumber/wireplumber.conf.d/ and restart WirePlumber \
            (contrib/wireplumber/README.md)
            """
    }
}
