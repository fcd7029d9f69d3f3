import SessionPolicy
import Testing

/// Who links: the daemon alone, or another session manager beside it.
struct CoexistenceTests {
    let wirePlumber = GraphPeer(id: 32, name: "WirePlumber", binary: "wireplumber", providesDefaultMetadata: true)
    let wirePlumberExport = GraphPeer(id: 44, name: "WirePlumber [export]", binary: "wireplumber")
    let player = GraphPeer(id: 50, name: "mpv", binary: "mpv")

    @Test func autoLinksAloneAndHandsOverWhileWirePlumberRuns() {
        var coexistence = Coexistence(mode: .auto)
        #expect(coexistence.linksStreams)
        #expect(coexistence.peersChanged([player]) == nil, "an app is not a session manager")
        let handOver = coexistence.peersChanged([player, wirePlumber, wirePlumberExport])
        #expect(handOver?.linksStreams == false)
        #expect(handOver?.reason == "not linking: WirePlumber links streams (--linking=auto)")
        #expect(coexistence.peersChanged([wirePlumberExport, player]) == nil, "its second connection is still it")
        let takeOver = coexistence.peersChanged([player])
        #expect(takeOver?.linksStreams == true)
        #expect(coexistence.reason == "linking streams: no other session manager (--linking=auto)")
    }

    @Test func anyOtherProviderOfTheDefaultMetadataIsASessionManager() {
        var coexistence = Coexistence(mode: .auto)
        let other = GraphPeer(id: 60, name: "my-kiosk-manager", binary: "kiosk", providesDefaultMetadata: true)
        #expect(coexistence.peersChanged([other])?.linksStreams == false)
        #expect(Coexistence.isSessionManager(GraphPeer(id: 1, name: nil, binary: "pipewire-media-session")))
        #expect(!Coexistence.isSessionManager(GraphPeer(id: 2, name: "WirePlumberFan", binary: "fan")))
    }

    @Test func alwaysAndNeverIgnoreWhoElseIsThere() {
        var always = Coexistence(mode: .always)
        #expect(always.peersChanged([wirePlumber]) == nil)
        #expect(always.linksStreams)
        var never = Coexistence(mode: .never)
        #expect(!never.linksStreams)
        #expect(never.peersChanged([]) == nil)
        #expect(!never.linksStreams)
        #expect(never.reason == "not linking (--linking=never)")
    }

    @Test func theRolePolicyConflictIsReportedOnce() {
        var coexistence = Coexistence(mode: .auto)
        let warning = coexistence.rolePolicySeen(stream: "music", target: "loopback.sink.role.multimedia")
        #expect(warning?.contains("contrib/wireplumber/wireplumber.conf.d/90-audiosession.conf") == true)
        #expect(coexistence.rolePolicySeen(stream: "chime", target: "loopback.sink.role.notification") == nil)
    }
}
