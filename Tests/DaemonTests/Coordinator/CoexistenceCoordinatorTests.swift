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

    init() throws {
        coordinator = try .onShippedRules(backend, linkingMode: .auto)
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
}
