import Logging
import PolicyRules
import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// Handing linking over to WirePlumber and back, with a fake backend.
@Suite("PolicyCoordinator beside another session manager")
struct CoexistenceCoordinatorTests {
    let backend = FakeBackend()
    let coordinator: PolicyCoordinator
    let speaker = Port(uid: "speaker", nodeID: 40, type: .builtInSpeaker, direction: .output)
    let wirePlumber = GraphPeer(id: 32, name: "WirePlumber", binary: "wireplumber", providesDefaultMetadata: true)

    let loop = VirtualLoop()

    init() throws {
        coordinator = try .onShippedRules(backend, loop: loop, linkingMode: .auto)
        coordinator.handle(.peersChanged([]))
        coordinator.handle(.attached(streams: [], ports: [speaker], defaultOutput: "speaker", defaultInput: nil))
    }

    func stream(_ id: UInt32, role: String, client: UInt32) -> BackendStream {
        BackendStream(
            id: .playback(id), client: client, properties: ["media.role": role], activity: .playing,
            appName: "app\(client)", processID: nil)
    }

    @Test func wirePlumberArrivingMidCallMutesTheHeldMusicInstead() {
        #expect(!backend.actions.contains(.linking(false)), "alone, it keeps linking")
        coordinator.handle(.streamAppeared(stream(1, role: "Music", client: 10)))
        coordinator.handle(.streamAppeared(stream(2, role: "Communication", client: 20)))
        #expect(backend.actions.contains(.hold(1)))
        backend.clearActions()
        coordinator.handle(.peersChanged([wirePlumber]))
        // Linking goes first; the hold is let go of and the music muted in the same step, so
        // the links WirePlumber makes for it never carry it through the call.
        #expect(backend.actions == [.linking(false), .release(1), .mute(1, true)])
        #expect(coordinator.coexistence.reason == "not linking: WirePlumber links streams (--linking=auto)")
        backend.clearActions()
        coordinator.handle(.streamRemoved(2))
        #expect(backend.actions.contains(.mute(1, false)))
        #expect(!backend.actions.contains(.release(1)))
    }

    @Test func wirePlumberLeavingHandsLinkingBack() {
        coordinator.handle(.peersChanged([wirePlumber]))
        backend.clearActions()
        coordinator.handle(.peersChanged([]))
        #expect(backend.actions == [.linking(true)])
        #expect(backend.interruptionMethods == [.unlink, .mute])
    }

    @Test func ourDefaultMetadataGoesWhenWirePlumberHasLoadedEverythingNotWhenItConnects() {
        let main = GraphPeer(id: 31, name: "WirePlumber", binary: "wireplumber", processID: 1254)
        coordinator.handle(.peersChanged([main]))
        #expect(backend.actions == [.linking(false)], "its links go at once; our metadata stays while it binds")
        backend.clearActions()
        var loaded = main
        loaded.services = GraphPeer.services(from: "[audio, policy.linking.standard]")
        coordinator.handle(.peersChanged([loaded]))
        #expect(backend.actions == [.withdrewDefaultMetadata])
        backend.clearActions()
        loop.advance(by: Coexistence.defaultMetadataHandOverBound)
        #expect(backend.actions.isEmpty, "withdrawn once")
    }

    @Test func aManagerThatNeverSaysWhatItDoesHasOurDefaultMetadataGoAfterTheBound() {
        coordinator.handle(.peersChanged([wirePlumber]))
        backend.clearActions()
        loop.advance(by: Coexistence.defaultMetadataHandOverBound - .milliseconds(1))
        #expect(backend.actions.isEmpty)
        loop.advance(by: .milliseconds(1))
        #expect(backend.actions == [.withdrewDefaultMetadata])
    }
}
