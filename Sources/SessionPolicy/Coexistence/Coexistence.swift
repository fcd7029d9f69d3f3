/// Living beside another session manager: whether the daemon links streams, and what it tells
/// the user when both would act on the same streams.
///
/// In `auto` mode the daemon links only while no other session manager links — a WirePlumber
/// (or pipewire-media-session) client, or any other client that provides the `default`
/// metadata — and hands linking over the moment one appears: two linkers fight over the same
/// streams, and WirePlumber 0.5 does not re-create links another client removed, so a daemon
/// that linked beside it would leave streams silent when it stops. A WirePlumber 0.5 that says
/// in `session.services` that it does not link (it manages devices only) leaves linking to the
/// daemon.
public struct Coexistence: Hashable, Sendable {
    public let mode: LinkingMode
    /// The other session managers present now, by client id: those that link streams and those
    /// that only manage devices.
    public private(set) var managers: [UInt32: GraphPeer] = [:]
    /// Among ``managers``, those that link streams.
    public private(set) var linkingManagers: [UInt32: GraphPeer] = [:]
    /// Whether the daemon links streams now.
    public private(set) var linksStreams: Bool
    /// Whether the daemon gives devices their DSP ports: only while no other session manager is
    /// present. One that manages devices but leaves linking to us (WirePlumber with
    /// `contrib/wireplumber/wireplumber.conf.d/90-audiosession-devices-only.conf`) configures
    /// every device it sees, and two writers of a node's ports would each tear down the other's
    /// ports (and links). Streams get their ports from whoever links them.
    public private(set) var configuresDevicePorts: Bool
    /// What each present program said it does, by process, kept while any of its connections
    /// remains: WirePlumber leaving closes its main connection (the one that said it) before
    /// its second, which alone would count as a linking manager for a moment.
    private var declaredServices: [Int32: Set<String>] = [:]
    /// The role-based policy conflict's warning, from its first sighting (reported then, once)
    /// until every other manager is gone.
    private var rolePolicyConflict: String?
    /// WirePlumber's `bluetooth.autoswitch-to-headset-profile`, as its `sm-settings` metadata
    /// says it (0.5); nil: not said.
    private var headsetAutoswitch: Bool?
    /// ``othersSwitchHeadsets`` as ``headsetSwitchingChange()`` last gave it.
    private var toldOthersSwitchHeadsets = false
    /// Linking was handed over and our `default` metadata (if we provide it) has not gone yet.
    private var defaultMetadataWithdrawalPending = false
    /// The hand-overs so far: a bound that passes counts only for the hand-over it was set for.
    public private(set) var handOvers = 0
    /// ``defaultMetadataHandOverBound`` has passed since the last hand-over.
    private var handOverBoundPassed = false

    public init(mode: LinkingMode) {
        self.mode = mode
        linksStreams = mode != .never
        configuresDevicePorts = mode != .never
    }

    /// Programs known to link streams and manage devices.
    static let sessionManagerNames: Set<String> = ["wireplumber", "pipewire-media-session", "media-session"]
    /// The `session.services` entry of a manager that links streams (WirePlumber 0.5's
    /// `policy.linking.standard` feature).
    static let linkingService = "policy.linking.standard"

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

    /// Whether a session manager links streams: as its program said in `session.services` (on
    /// any of its connections, now or while it ran), and where it said nothing, yes.
    /// WirePlumber 0.5 says it only once every part is loaded, a moment after it connects:
    /// until then it counts as linking, so the daemon hands over at once and takes linking back
    /// if it is told otherwise.
    private func isLinker(_ manager: GraphPeer) -> Bool {
        guard let declared = declaredServices(of: manager) else { return true }
        return declared.contains(Self.linkingService)
    }

    /// A change of who links or who configures ports.
    public struct LinkingChange: Hashable, Sendable {
        public var linksStreams: Bool
        public var configuresDevicePorts: Bool
        /// Why, for the log and `status`.
        public var reason: String

        public init(linksStreams: Bool, configuresDevicePorts: Bool, reason: String) {
            self.linksStreams = linksStreams
            self.configuresDevicePorts = configuresDevicePorts
            self.reason = reason
        }
    }

    /// The graph's other clients now (every one but the daemon's own). Returns a change when
    /// the daemon starts or stops linking or configuring ports because of them.
    public mutating func peersChanged(_ peers: [GraphPeer]) -> LinkingChange? {
        let present = peers.filter(Self.isSessionManager)
        managers = Dictionary(present.map { ($0.id, $0) }) { first, _ in first }
        let processes = Set(present.compactMap(\.processID))
        declaredServices = declaredServices.filter { processes.contains($0.key) }
        for peer in present { if let processID = peer.processID, let services = peer.services { declaredServices[processID] = services } }
        linkingManagers = managers.filter { isLinker($0.value) }
        let links: Bool
        switch mode {
        case .always: links = true
        case .never: links = false
        case .auto: links = linkingManagers.isEmpty
        }
        let ports = links && managers.isEmpty
        if managers.isEmpty {
            defaultMetadataWithdrawalPending = false
            // The policy went with its manager (a restart with the shipped drop-in ends it).
            rolePolicyConflict = nil
        }
        guard links != linksStreams || ports != configuresDevicePorts else { return nil }
        if linksStreams, !links {
            defaultMetadataWithdrawalPending = true
            handOverBoundPassed = false
            handOvers += 1
        }
        linksStreams = links
        configuresDevicePorts = ports
        return LinkingChange(linksStreams: links, configuresDevicePorts: ports, reason: reason)
    }

    // MARK: - Our `default` metadata after a hand-over

    /// How long after a hand-over our `default` metadata stays at most, for a session manager
    /// that never says what it does (WirePlumber 0.4, pipewire-media-session): about twice
    /// what WirePlumber 0.4 takes to start on a loaded machine.
    public static let defaultMetadataHandOverBound: Duration = .seconds(2)

    /// Whether our `default` metadata may go now: linking was handed over, and every other
    /// session manager has said what it does (`session.services`), or
    /// ``defaultMetadataHandOverBound`` has passed. True once per hand-over.
    ///
    /// A session manager binds every metadata it finds as it starts, ours too. PipeWire marks a
    /// client that binds a metadata another client exports as busy until the exporter answers a
    /// ping, and forgets to clear that mark if the object goes first (docs/upstream-bugs.md):
    /// the server never reads that client again. Withdrawn the moment WirePlumber connected, our
    /// metadata raced its binds, and a WirePlumber caught so went deaf for good, and every
    /// client binding WirePlumber's own metadata after it (pw-dump, us): 3 hand-over test runs
    /// in 178 with a CPU hog, the server's log showing WirePlumber busy from its bind of ours.
    /// WirePlumber 0.5 binds what it found while it loads its parts, and says its services once
    /// every part is loaded, so its binds reached the server before: once it has said them,
    /// the bind is answered by the withdrawal's round trips.
    public mutating func mayWithdrawDefaultMetadata() -> Bool {
        guard defaultMetadataWithdrawalPending, !managers.isEmpty,
            handOverBoundPassed || managers.values.allSatisfy({ declaredServices(of: $0) != nil })
        else { return false }
        defaultMetadataWithdrawalPending = false
        return true
    }

    /// ``defaultMetadataHandOverBound`` has passed since hand-over number `handOver`
    /// (``handOvers``); a bound of an earlier hand-over counts for nothing.
    public mutating func defaultMetadataHandOverBoundPassed(handOver: Int) {
        guard handOver == handOvers else { return }
        handOverBoundPassed = true
    }

    /// What a manager's program said it does, on this connection or another of its own.
    private func declaredServices(of manager: GraphPeer) -> Set<String>? {
        manager.services ?? manager.processID.flatMap { declaredServices[$0] }
    }

    /// Whether another session manager switches headsets' profiles: one is there, and it did
    /// not say that its autoswitch is off. WirePlumber 0.4 says nothing and switches for
    /// calls; 0.5 switches for any capture of a headset's microphone unless told not to.
    public var othersSwitchHeadsets: Bool { !managers.isEmpty && headsetAutoswitch != false }

    /// What the other session manager's settings now say of its autoswitch (nil: nothing).
    public mutating func headsetAutoswitchChanged(_ on: Bool?) {
        headsetAutoswitch = on
    }

    /// ``othersSwitchHeadsets``, when it changed since this was last asked.
    public mutating func headsetSwitchingChange() -> Bool? {
        guard othersSwitchHeadsets != toldOthersSwitchHeadsets else { return nil }
        toldOthersSwitchHeadsets = othersSwitchHeadsets
        return othersSwitchHeadsets
    }

    /// The mode and what it means now, for the log and `status`.
    public var reason: String {
        switch (mode, linksStreams) {
        case (.always, _): return "linking streams (--linking=always)"
        case (.never, _): return "not linking (--linking=never)"
        case (.auto, true) where !managers.isEmpty:
            return "linking streams: \(Self.names(of: managers)) manages devices only (--linking=auto)"
        case (.auto, true): return "linking streams: no other session manager (--linking=auto)"
        case (.auto, false): return "not linking: \(managerNames) links streams (--linking=auto)"
        }
    }

    /// The other session managers that link, by name, one per program.
    public var managerNames: String { Self.names(of: linkingManagers) }

    private static func names(of peers: [UInt32: GraphPeer]) -> String {
        let names = Set(peers.values.map { $0.displayName.split(separator: " ").first.map(String.init) ?? $0.displayName })
        return names.isEmpty ? "nobody" : names.sorted().joined(separator: ", ")
    }

    /// A stream was seen linked to a node of another manager's role-based policy (WirePlumber's
    /// role loopbacks, `policy.role-based.target`): that policy ducks and corks by role, as the
    /// daemon does, so the same stream would be ducked twice and interrupted by both. Returns
    /// the warning to log, the first time only.
    public mutating func rolePolicySeen(stream: String, target: String) -> String? {
        guard rolePolicyConflict == nil else { return nil }
        rolePolicyConflict = Self.rolePolicyWarning(stream: stream, target: target)
        return rolePolicyConflict
    }

    /// What works against the daemon now, one sentence each with what to do about it, for the
    /// log (once) and `status` (for as long as it holds): another manager's role-based policy.
    public var conflicts: [String] { rolePolicyConflict.map { [$0] } ?? [] }

    private static func rolePolicyWarning(stream: String, target: String) -> String {
        """
            another session manager's role-based policy is on: stream '\(stream)' plays through its role node \
            '\(target)', which ducks and corks by media role as audiosessiond does, so streams would be ducked \
            twice and interrupted by both. Turn it off: copy contrib/wireplumber/wireplumber.conf.d/\
            90-audiosession.conf to ~/.config/wireplumber/wireplumber.conf.d/ and restart WirePlumber \
            (contrib/wireplumber/README.md)
            """
    }
}
