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

    @Test func aWirePlumberThatSaysItLinksNothingLeavesLinkingToTheDaemonAndKeepsDevicePorts() {
        var coexistence = Coexistence(mode: .auto)
        // WirePlumber 0.5 connects twice (same process), and says what it does a moment later.
        let main = GraphPeer(id: 31, name: "WirePlumber", binary: "wireplumber", processID: 1254)
        let export = GraphPeer(id: 37, name: "WirePlumber [export]", binary: "wireplumber", processID: 1254)
        let handOver = coexistence.peersChanged([main, export, player])
        #expect(handOver == .init(linksStreams: false, configuresDevicePorts: false, reason: "not linking: WirePlumber links streams (--linking=auto)"),
                "said nothing yet: it links, as WirePlumber 0.4 does")
        var devicesOnly = main
        devicesOnly.services = GraphPeer.services(
            from: "[api.alsa, audio, api.bluez, policy.device.profile, bluetooth.audio, policy.device.routes]")
        let takeBack = coexistence.peersChanged([devicesOnly, export, player])
        #expect(takeBack?.linksStreams == true)
        #expect(takeBack?.configuresDevicePorts == false, "its node items give every device its ports")
        #expect(coexistence.reason == "linking streams: WirePlumber manages devices only (--linking=auto)")
        #expect(coexistence.peersChanged([export, devicesOnly]) == nil, "its second connection is the same program")
        #expect(coexistence.peersChanged([export, player]) == nil, "leaving, it closes the connection that said it first")
        #expect(coexistence.peersChanged([player])?.configuresDevicePorts == true, "gone: the daemon gives devices their ports again")
        #expect(coexistence.linksStreams)
        _ = coexistence.peersChanged([devicesOnly, export])

        var standard = main
        standard.services = GraphPeer.services(from: "[audio, policy.default-nodes, policy.linking.standard, policy.linking.role-based]")
        #expect(coexistence.peersChanged([standard, export])?.linksStreams == false)
        let alone = coexistence.peersChanged([player])
        #expect(alone == .init(linksStreams: true, configuresDevicePorts: true, reason: "linking streams: no other session manager (--linking=auto)"))
    }

    private func withdraws(_ coexistence: inout Coexistence) -> Bool { coexistence.mayWithdrawDefaultMetadata() }

    /// WirePlumber binds what it finds as it starts, ours too; our `default` goes once it has
    /// said what it does (its binds have reached the server by then), not while it binds.
    @Test func ourDefaultMetadataGoesOnceTheManagerThatTookOverHasSaidWhatItDoes() {
        var coexistence = Coexistence(mode: .auto)
        #expect(!withdraws(&coexistence), "alone: nothing handed over")
        let main = GraphPeer(id: 31, name: "WirePlumber", binary: "wireplumber", processID: 1254)
        let export = GraphPeer(id: 37, name: "WirePlumber [export]", binary: "wireplumber", processID: 1254)
        #expect(coexistence.peersChanged([main, player])?.linksStreams == false)
        #expect(!withdraws(&coexistence), "it is still loading its parts")
        #expect(coexistence.peersChanged([main, export, player]) == nil)
        #expect(!withdraws(&coexistence))
        var loaded = main
        loaded.services = GraphPeer.services(from: "[audio, policy.default-nodes, policy.linking.standard]")
        #expect(coexistence.peersChanged([loaded, export, player]) == nil, "it links: nothing changes")
        #expect(withdraws(&coexistence), "said by its main connection, for its second as well")
        #expect(!withdraws(&coexistence), "once a hand-over")
        coexistence.defaultMetadataHandOverBoundPassed(handOver: coexistence.handOvers)
        #expect(!withdraws(&coexistence))
    }

    @Test func aManagerThatSaysNothingHasOurDefaultMetadataGoAfterTheBound() {
        var coexistence = Coexistence(mode: .auto)
        let old = GraphPeer(id: 32, name: "WirePlumber", binary: "wireplumber", processID: 900)
        _ = coexistence.peersChanged([old])
        let first = coexistence.handOvers
        _ = coexistence.peersChanged([])
        #expect(!withdraws(&coexistence), "gone before it settled: ours stays, we link again")
        _ = coexistence.peersChanged([old])
        coexistence.defaultMetadataHandOverBoundPassed(handOver: first)
        #expect(!withdraws(&coexistence), "the bound of an earlier hand-over counts for nothing")
        coexistence.defaultMetadataHandOverBoundPassed(handOver: coexistence.handOvers)
        #expect(withdraws(&coexistence))
        #expect(Coexistence.defaultMetadataHandOverBound == .seconds(2))
    }

    @Test func anotherSessionManagerSwitchesHeadsetsUnlessItsSettingsSayItsAutoswitchIsOff() {
        var coexistence = Coexistence(mode: .auto)
        #expect(!coexistence.othersSwitchHeadsets, "alone")
        #expect(coexistence.headsetSwitchingChange() == nil, "nothing changed")
        _ = coexistence.peersChanged([wirePlumber, wirePlumberExport])
        #expect(coexistence.headsetSwitchingChange() == true, "WirePlumber 0.4 says nothing, and switches for calls")
        coexistence.headsetAutoswitchChanged(false)  // the devices-only drop-in of contrib/wireplumber/
        #expect(coexistence.headsetSwitchingChange() == false)
        coexistence.headsetAutoswitchChanged(true)
        #expect(coexistence.headsetSwitchingChange() == true)
        #expect(coexistence.headsetSwitchingChange() == nil, "told once")
        _ = coexistence.peersChanged([player])
        #expect(coexistence.headsetSwitchingChange() == false, "it went")
    }

    @Test func theServicesListIsReadAsWirePlumberWritesIt() {
        #expect(GraphPeer.services(from: "[api.alsa, audio, policy.linking.standard]") == ["api.alsa", "audio", "policy.linking.standard"])
        #expect(GraphPeer.services(from: "[]") == [])
        #expect(GraphPeer.services(from: nil) == nil)
    }

    @Test func alwaysAndNeverIgnoreWhoElseIsThere() {
        var always = Coexistence(mode: .always)
        #expect(always.peersChanged([wirePlumber]) == .init(linksStreams: true, configuresDevicePorts: false, reason: "linking streams (--linking=always)"),
                "it links, and leaves ports to WirePlumber")
        #expect(always.linksStreams)
        var never = Coexistence(mode: .never)
        #expect(!never.linksStreams)
        #expect(never.peersChanged([]) == nil)
        #expect(!never.linksStreams)
        #expect(never.reason == "not linking (--linking=never)")
    }

    @Test func theRolePolicyConflictIsReportedOnce() {
        var coexistence = Coexistence(mode: .auto)
        _ = coexistence.peersChanged([wirePlumber])
        #expect(coexistence.conflicts.isEmpty)
        let warning = coexistence.rolePolicySeen(stream: "music", target: "loopback.sink.role.multimedia")
        #expect(warning?.contains("contrib/wireplumber/wireplumber.conf.d/90-audiosession.conf") == true)
        #expect(coexistence.rolePolicySeen(stream: "chime", target: "loopback.sink.role.notification") == nil)
        #expect(coexistence.conflicts == [warning], "the first sighting holds for status")
    }

    @Test func theConflictGoesWithTheOtherManager() {
        var coexistence = Coexistence(mode: .auto)
        _ = coexistence.peersChanged([wirePlumber, wirePlumberExport])
        _ = coexistence.rolePolicySeen(stream: "music", target: "loopback.sink.role.multimedia")
        _ = coexistence.peersChanged([wirePlumberExport])
        #expect(coexistence.conflicts.count == 1, "one of its connections remains")
        _ = coexistence.peersChanged([])
        #expect(coexistence.conflicts.isEmpty, "WirePlumber left (restarted with the drop-in, or stopped)")
        _ = coexistence.peersChanged([wirePlumber])
        #expect(coexistence.rolePolicySeen(stream: "music", target: "loopback.sink.role.multimedia") != nil, "said again if it comes back with the policy")
    }
}
