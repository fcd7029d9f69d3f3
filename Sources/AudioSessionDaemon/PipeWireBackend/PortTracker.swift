import PipeWireGraph
import SessionPolicy

/// Remembers which ports the policy has been told about, per node, so that node and device
/// changes become exactly the port events that differ: a new port, a port gone, or a route whose
/// availability flipped (a headphone jack). A route that was never available is not reported
/// until it is.
///
/// Confined to the loop thread with the backend that owns it.
struct PortTracker {
    /// Per sink or source node: uid → availability, as last reported.
    private var reported: [GlobalID: [String: Bool]] = [:]
    private var order: [GlobalID: [String]] = [:]
    /// The rules' port types (policy-rules `audiosession.port-rules`).
    var typeRule: PortClassification.TypeRule?

    mutating func reset() {
        reported.removeAll()
        order.removeAll()
    }

    /// Everything available now, in node order; the policy learns them as one list.
    mutating func attach(to snapshot: GraphSnapshot) -> [SessionPolicy.Port] {
        reset()
        var ports: [SessionPolicy.Port] = []
        for node in snapshot.sortedNodes {
            let offers = PortClassification.offers(for: node, in: snapshot, rule: typeRule).filter(\.available)
            guard !offers.isEmpty else { continue }
            reported[node.id] = Dictionary(uniqueKeysWithValues: offers.map { ($0.port.uid, true) })
            order[node.id] = offers.map(\.port.uid)
            ports += offers.map(\.port)
        }
        return ports
    }

    /// A sink or source node appeared or changed, or its device's routes did: the events that
    /// bring the policy in line. Gains come before losses, so a route that moves within a
    /// device is never briefly "no route at all".
    mutating func refresh(_ node: Node, in snapshot: GraphSnapshot) -> [BackendEvent] {
        let offers = PortClassification.offers(for: node, in: snapshot, rule: typeRule)
        var known = reported[node.id] ?? [:]
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
            default:
                break
            }
        }
        let offered = Set(offers.map(\.port.uid))
        for uid in order[node.id] ?? [] where known[uid] != nil && !offered.contains(uid) {
            losses.append(.portRemoved(uid: uid))
            known[uid] = nil
        }
        let previousOrder = (order[node.id] ?? []).filter { known[$0] != nil }
        order[node.id] = previousOrder + offers.map(\.port.uid).filter { known[$0] != nil && !previousOrder.contains($0) }
        reported[node.id] = known.isEmpty ? nil : known
        if known.isEmpty { order[node.id] = nil }
        return gains + losses
    }

    /// The node is gone: every port of it the policy knows goes with it.
    mutating func removed(_ node: GlobalID) -> [BackendEvent] {
        let uids = order.removeValue(forKey: node) ?? []
        let known = reported.removeValue(forKey: node) ?? [:]
        return uids.filter { known[$0] != nil }.map { .portRemoved(uid: $0) }
    }
}
