import Testing

@testable import PipeWireGraph

/// Which of our links only our proxy can destroy when a stream is taken off a device: those the
/// mirror does not show yet, whether PipeWire made them (bound) or not.
@Suite struct UnmirroredLinksTests {
    /// Ports 10, 11 are the device's outputs; 20, 21 the stream's inputs (node 2); 30 another node's.
    let nodes: [GlobalID: GlobalID] = [20: 2, 21: 2, 30: 3]

    func unmirrored(_ owned: [PortPairing.Pair: GlobalID?], mirrored: Set<GlobalID>) -> [PortPairing.Pair] {
        GraphSession.unmirroredLinks(owned, from: [10, 11], to: 2, nodeOfPort: { nodes[$0] }, mirrored: mirrored)
    }

    @Test func aLinkBoundBeforeItsInfoCameIsOursToDestroy() {
        let left = PortPairing.Pair(outputPort: 10, inputPort: 20)
        let right = PortPairing.Pair(outputPort: 11, inputPort: 21)
        // Left made and in the mirror (destroyed by id); right made, its info still on its way.
        #expect(unmirrored([left: 50, right: 51], mirrored: [50]) == [right])
    }

    @Test func aLinkNotYetMadeIsOursToDestroy() {
        let left = PortPairing.Pair(outputPort: 10, inputPort: 20)
        let notMade: [PortPairing.Pair: GlobalID?] = [left: GlobalID?.none]
        #expect(unmirrored(notMade, mirrored: []) == [left])
    }

    @Test func linksToOtherNodesOrFromOtherPortsStay() {
        let elsewhere = PortPairing.Pair(outputPort: 10, inputPort: 30)
        let otherDevice = PortPairing.Pair(outputPort: 12, inputPort: 20)
        #expect(unmirrored([elsewhere: 60, otherDevice: 61], mirrored: []).isEmpty)
    }
}
