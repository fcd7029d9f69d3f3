import SessionPolicy

/// Remembers which ports the policy has been told about, per sink or source, so that device
/// changes become exactly the port events that differ: a new port, a port gone, or a route whose
/// availability flipped (a headphone jack). A route that was never available is not reported
/// until it is. Each backend says what its sinks and sources offer (PipeWire: `PortTracker+Graph`,
/// PulseAudio: `PulsePorts`); the bookkeeping is this one.
///
/// Confined to the loop thread with the backend that owns it.
struct PortTracker<Device: Hashable> {
    /// Per sink or source: uid → availability, as last reported.
    private var reported: [Device: [String: Bool]] = [:]
    /// The descriptions last reported, by uid (a change is a route configuration change).
    private var described: [String: SessionPolicy.Port] = [:]
    private var order: [Device: [String]] = [:]
    /// The rules' port types (policy-rules `audiosession.port-rules`).
    var typeRule: PortTyping.TypeRule?

    mutating func reset() {
        reported.removeAll()
        order.removeAll()
        described.removeAll()
    }

    /// Everything available now, in the devices' order; the policy learns them as one list.
    mutating func attach(_ devices: [(Device, [PortTyping.Offer])]) -> [SessionPolicy.Port] {
        reset()
        var ports: [SessionPolicy.Port] = []
        for (device, offers) in devices {
            let offers = offers.filter(\.available)
            guard !offers.isEmpty else { continue }
            reported[device] = Dictionary(uniqueKeysWithValues: offers.map { ($0.port.uid, true) })
            order[device] = offers.map(\.port.uid)
            for offer in offers { described[offer.port.uid] = offer.port }
            ports += offers.map(\.port)
        }
        return ports
    }

    /// A sink or source appeared or changed, or its device's routes did: the events that
    /// bring the policy in line. Gains come before losses, so a route that moves within a
    /// device is never briefly "no route at all".
    mutating func refresh(_ device: Device, offers: [PortTyping.Offer]) -> [BackendEvent] {
        var known = reported[device] ?? [:]
        var gains: [BackendEvent] = []
        var losses: [BackendEvent] = []
        for offer in offers {
            let uid = offer.port.uid
            switch known[uid] {
            case nil where offer.available:
                gains.append(.portAppeared(offer.port))
                known[uid] = true
            case .some(let was) where was != offer.available:
                let event = BackendEvent.portAvailabilityChanged(uid: uid, available: offer.available)
                offer.available ? gains.append(event) : losses.append(event)
                known[uid] = offer.available
            case .some:
                if let before = described[uid] {
                    let now = Self.description(offer, before: before)
                    if now != before { gains.append(.portChanged(now)) }
                }
            default:
                break
            }
            if known[uid] != nil { described[uid] = described[uid].map { Self.description(offer, before: $0) } ?? offer.port }
        }
        let offered = Set(offers.map(\.port.uid))
        for uid in order[device] ?? [] where known[uid] != nil && !offered.contains(uid) {
            losses.append(.portRemoved(uid: uid))
            known[uid] = nil
            described[uid] = nil
        }
        let previousOrder = (order[device] ?? []).filter { known[$0] != nil }
        order[device] = previousOrder + offers.map(\.port.uid).filter { known[$0] != nil && !previousOrder.contains($0) }
        reported[device] = known.isEmpty ? nil : known
        if known.isEmpty { order[device] = nil }
        return gains + losses
    }

    /// The port as the policy should know it now: a channel count guessed from volumes (the
    /// node's Props correct it soon after it appears) does not replace the one reported.
    static func description(_ offer: PortTyping.Offer, before: SessionPolicy.Port) -> SessionPolicy.Port {
        var port = offer.port
        if !offer.channelsDeclared { port.channels = before.channels }
        return port
    }

    /// The sink or source is gone: every port of it the policy knows goes with it.
    mutating func removed(_ device: Device) -> [BackendEvent] {
        let uids = order.removeValue(forKey: device) ?? []
        let known = reported.removeValue(forKey: device) ?? [:]
        for uid in uids { described[uid] = nil }
        return uids.filter { known[$0] != nil }.map { .portRemoved(uid: $0) }
    }
}
