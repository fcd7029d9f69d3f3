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

    @Test func noRouteOrAGoneOneFollowsTheDefault() {
        #expect(StreamRouting.decide(for: music, route: [], endpoints: all, defaultEndpoint: speaker).devices == [40])
        #expect(StreamRouting.decide(for: music, route: [99], endpoints: all, defaultEndpoint: headphones).devices == [41])
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
