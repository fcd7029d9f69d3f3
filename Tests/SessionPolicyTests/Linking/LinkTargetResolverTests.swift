import Testing
@testable import SessionPolicy

@Suite("Linking: which device a stream goes to")
struct LinkTargetResolverTests {
    let speaker = LinkEndpoint(id: 40, name: "speaker", serial: 140, direction: .playback, priority: 1000)
    let headphones = LinkEndpoint(id: 41, name: "headphones", serial: 141, direction: .playback, priority: 900)
    let mic = LinkEndpoint(id: 42, name: "mic", serial: 142, direction: .capture, priority: 500)
    var all: [LinkEndpoint] { [speaker, headphones, mic] }

    @Test func defaultIsTheConfiguredDeviceWhenItExists() {
        let chosen = LinkTargetResolver.defaultEndpoint(direction: .playback, configuredName: "headphones", endpoints: all)
        #expect(chosen == headphones)
    }

    @Test func defaultFallsBackToHighestPriorityWhenConfiguredIsGone() {
        let chosen = LinkTargetResolver.defaultEndpoint(direction: .playback, configuredName: "usb-dac", endpoints: all)
        #expect(chosen == speaker)
    }

    @Test func defaultTieBreakIsByNameNotDiscoveryOrder() {
        let a = LinkEndpoint(id: 7, name: "a-sink", direction: .playback, priority: 5)
        let b = LinkEndpoint(id: 3, name: "b-sink", direction: .playback, priority: 5)
        #expect(LinkTargetResolver.defaultEndpoint(direction: .playback, configuredName: nil, endpoints: [a, b]) == a)
        #expect(LinkTargetResolver.defaultEndpoint(direction: .playback, configuredName: nil, endpoints: [b, a]) == a)
    }

    @Test func defaultIgnoresOtherDirection() {
        #expect(LinkTargetResolver.defaultEndpoint(direction: .capture, configuredName: "speaker", endpoints: all) == mic)
        #expect(LinkTargetResolver.defaultEndpoint(direction: .capture, configuredName: nil, endpoints: [speaker]) == nil)
    }

    @Test func streamWithoutTargetFollowsDefault() {
        let target = LinkTargetResolver.target(
            for: StreamLinkRequest(direction: .playback), endpoints: all, defaultEndpoint: speaker)
        #expect(target == .followingDefault(speaker))
    }

    @Test(arguments: ["headphones", "141", "41"])
    func requestedTargetByNameSerialOrIdWins(_ requested: String) {
        let target = LinkTargetResolver.target(
            for: StreamLinkRequest(direction: .playback, requestedTarget: requested), endpoints: all,
            defaultEndpoint: speaker)
        #expect(target == .requested(headphones))
    }

    @Test func requestedTargetOfWrongDirectionIsNotUsed() {
        let target = LinkTargetResolver.target(
            for: StreamLinkRequest(direction: .playback, requestedTarget: "mic"), endpoints: all, defaultEndpoint: speaker)
        #expect(target == .followingDefault(speaker))
    }

    @Test func goneRequestedTargetMovesToDefault() {
        let target = LinkTargetResolver.target(
            for: StreamLinkRequest(direction: .playback, requestedTarget: "usb-dac"), endpoints: all,
            defaultEndpoint: speaker)
        #expect(target == .followingDefault(speaker))
    }

    @Test func goneRequestedTargetWithDontReconnectStaysUnlinked() {
        let target = LinkTargetResolver.target(
            for: StreamLinkRequest(direction: .playback, requestedTarget: "usb-dac", dontReconnect: true),
            endpoints: all, defaultEndpoint: speaker)
        #expect(target == .none(.requestedTargetGoneNoReconnect))
        #expect(target.endpoint == nil)
    }

    @Test func noDeviceMeansNoLink() {
        let target = LinkTargetResolver.target(
            for: StreamLinkRequest(direction: .capture), endpoints: [speaker], defaultEndpoint: nil)
        #expect(target == .none(.noDevice))
    }
}
