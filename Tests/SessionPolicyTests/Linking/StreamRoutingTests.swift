import Testing
@testable import SessionPolicy

/// The one routing decision: named target, else the session's route, else the default.
@Suite("Linking: a stream's devices, all considered")
struct StreamRoutingTests {
    let speaker = LinkEndpoint(id: 40, name: "speaker", direction: .playback, priority: 1000)
    let headphones = LinkEndpoint(id: 41, name: "headphones", direction: .playback, priority: 900)
    let hdmi = LinkEndpoint(id: 43, name: "hdmi", direction: .playback, priority: 800)
    var all: [LinkEndpoint] { [speaker, headphones, hdmi] }
    let music = StreamLinkRequest(direction: .playback)

    @Test func aNamedTargetWinsOverTheSessionsRoute() {
        let pinned = StreamLinkRequest(direction: .playback, requestedTarget: "hdmi")
        let decision = StreamRouting.decide(for: pinned, route: [41], endpoints: all, defaultEndpoint: speaker)
        #expect(decision.devices == [43])
        #expect(decision.target == .requested(hdmi))
    }

    @Test func theSessionsRouteEveryDeviceOfItThatExists() {
        let decision = StreamRouting.decide(for: music, route: [41, 43, 99], endpoints: all, defaultEndpoint: speaker)
        #expect(decision.devices == [41, 43], "multiRoute; a gone device is skipped")
        #expect(decision.reason == "its session's route")
    }

    @Test func noRouteFollowsTheDefault() {
        #expect(StreamRouting.decide(for: music, route: [], endpoints: all, defaultEndpoint: speaker).devices == [40])
    }

    /// A route whose devices all went, that the policy has not replaced (a headset switching
    /// profile, its new sink coming): following the default would play a headset's music on the
    /// speakers for a moment.
    @Test func aGoneRouteWaitsForTheNextInsteadOfFollowingTheDefault() {
        let decision = StreamRouting.decide(for: music, route: [99], endpoints: all, defaultEndpoint: headphones)
        #expect(decision.devices.isEmpty)
        #expect(decision.reason == "its session's route is gone: waiting for the next")
    }

    @Test func aGoneTargetWithDontReconnectStaysUnlinkedWhateverTheRoute() {
        let request = StreamLinkRequest(direction: .playback, requestedTarget: "usb", dontReconnect: true)
        #expect(StreamRouting.decide(for: request, route: [41], endpoints: all, defaultEndpoint: speaker).devices.isEmpty)
    }

    @Test func thePolicysDefaultComesFirstThenTheUsersThenPriority() {
        #expect(StreamRouting.effectiveDefault(direction: .playback, preferred: 41, configuredName: "hdmi", endpoints: all) == headphones)
        #expect(StreamRouting.effectiveDefault(direction: .playback, preferred: 99, configuredName: "hdmi", endpoints: all) == hdmi)
        #expect(StreamRouting.effectiveDefault(direction: .playback, preferred: nil, configuredName: nil, endpoints: all) == speaker)
    }
}
