import PipeWireGraph
import SessionPolicy

/// What PipeWire's sink and source nodes offer (``PortClassification``), kept by node id.
extension PortTracker where Device == GlobalID {
    /// Every port available now, in node order.
    mutating func attach(to snapshot: GraphSnapshot) -> [SessionPolicy.Port] {
        let rule = typeRule
        return attach(snapshot.sortedNodes.map { ($0.id, PortClassification.offers(for: $0, in: snapshot, rule: rule)) })
    }

    /// A sink or source node appeared or changed, or its device's routes did.
    mutating func refresh(_ node: Node, in snapshot: GraphSnapshot) -> [BackendEvent] {
        refresh(node.id, offers: PortClassification.offers(for: node, in: snapshot, rule: typeRule))
    }
}
