import CPipeWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PipeWireShim

/// Link actions: carried out on the loop thread, deciding nothing.
extension GraphSession {
    /// Links `output` into `input` port by port; pairs already linked (or being linked) are skipped,
    /// so calling this again on every new port is cheap and idempotent.
    func link(output: GlobalID, input: GlobalID) {
        guard let core else { return }
        let links = mirror.links(of: output)
        // A link wanted again is no longer destroyed, if its destroy has not gone out yet.
        for link in links where link.inputNode == input { linkDestroys.cancel(link.id) }
        let existing = Set(links.map { PortPairing.Pair(outputPort: $0.outputPort, inputPort: $0.inputPort) })
        for pair in PortPairing.pairs(in: mirror, output: output, input: input)
        where !existing.contains(pair) && ownedLinks[pair] == nil {
            guard let proxy = pws_core_create_link(core, output, pair.outputPort, input, pair.inputPort) else {
                logger.warning("Could not create link \(output):\(pair.outputPort) → \(input):\(pair.inputPort)")
                continue
            }
            ownedLinks[pair] = OwnedLink(session: self, pair: pair, proxy: proxy)
        }
    }

    /// Destroys a link; paced with the other destroys of the moment (``PacedRequests``). The
    /// destroys going ahead are written before the events behind them are handled
    /// (``sendAhead()``): they cut a stream off.
    func unlink(_ link: GlobalID) {
        guard let registry else { return }
        switch linkDestroys.admit(link) {
        case .queued:
            logger.debug("link destroy \(link) waits for a round-trip (\(linkDestroys.pending.count) waiting)")
        case .send:
            _ = pws_registry_destroy(registry, link)
            sendAhead()
        case .sendThenRoundTrip:
            _ = pws_registry_destroy(registry, link)
            awaitLinkDestroys()
            sendAhead()
        }
    }

    /// A round-trip later, every destroy queued meanwhile.
    private func awaitLinkDestroys() {
        logger.debug("link destroys: round-trip asked")
        sync { [weak self] completed in
            guard let self else { return }
            self.logger.debug("link destroys: round-trip back (\(completed)), \(self.linkDestroys.pending.count) to send")
            guard completed, let registry = self.registry else { return self.linkDestroys.reset() }
            for link in self.linkDestroys.roundTripDone() { _ = pws_registry_destroy(registry, link) }
        }
    }

    func unlinkAll(between output: GlobalID, and input: GlobalID) {
        let mirrored = mirror.links(from: output, to: input)
        for link in mirrored { unlink(link.id) }
        let unmirrored = Self.unmirroredLinks(
            ownedLinks.mapValues(\.globalID), from: Set(mirror.ports(of: output).map(\.id)), to: input,
            nodeOfPort: { self.mirror.ports[$0]?.nodeID }, mirrored: Set(mirrored.map(\.id)))
        for pair in unmirrored {
            ownedLinks.removeValue(forKey: pair)?.destroy()
        }
    }

    /// Our links from `outputPorts` to the node `input` that the mirror does not show: asked
    /// for and not yet made, or made (bound) and their info not yet here — a link enters the
    /// mirror only with its info, a round trip after its `bound`. Only dropping our proxy
    /// destroys them; a link re-routed in that window (a preferred input chosen right after the
    /// stream was linked) was left behind beside the new one.
    static func unmirroredLinks(
        _ owned: [PortPairing.Pair: GlobalID?], from outputPorts: Set<GlobalID>, to input: GlobalID,
        nodeOfPort: (GlobalID) -> GlobalID?, mirrored: Set<GlobalID>
    ) -> [PortPairing.Pair] {
        owned.filter { pair, globalID in
            outputPorts.contains(pair.outputPort) && nodeOfPort(pair.inputPort) == input
                && !(globalID.map(mirrored.contains) ?? false)
        }.keys.sorted { ($0.outputPort, $0.inputPort) < ($1.outputPort, $1.inputPort) }
    }

    /// A port went while links to or from it were still being made: they will fail, and
    /// PipeWire gives a freed id to the next object, often a port made again in its place (a
    /// device's ports configured again). Left in ``ownedLinks`` until their failure came back,
    /// they would make linking that new port look done.
    func dropLinksBeingMade(to port: GlobalID) {
        for (pair, link) in ownedLinks where link.globalID == nil && (pair.outputPort == port || pair.inputPort == port) {
            ownedLinks[pair] = nil
            link.destroy()
        }
    }

    func ownedLinkFailed(_ link: OwnedLink, result: Int32, message: String) {
        logger.log(
            level: Self.level(of: result, otherwise: .warning),
            "Link \(link.pair.outputPort) → \(link.pair.inputPort) failed: \(message) (\(String(cString: strerror(-result))))")
        dropOwnedLink(link)
    }

    func ownedLinkRemoved(_ link: OwnedLink) { dropOwnedLink(link) }

    /// Defers the proxy's destruction (we are inside one of its own events) but keeps it
    /// reachable, so a teardown in between destroys it before the core frees it.
    private func dropOwnedLink(_ link: OwnedLink) {
        guard ownedLinks[link.pair] === link else { return }
        ownedLinks[link.pair] = nil
        retiredLinks.append(link)
        loopThread.enqueue { [self] in destroyRetiredLinks() }
    }

    func destroyRetiredLinks() {
        let links = retiredLinks
        retiredLinks = []
        for link in links { link.destroy() }
    }
}
