import Testing
@testable import SessionPolicy

/// A device switching profile (a headset from A2DP to HFP and back, or to `off`): its old
/// profile's ports go while the device stays, and the new profile's come. That is no unplug.
@Suite struct ProfileSwitchTests {
    static let speaker = RouteTests.speaker
    static let mic = RouteTests.mic
    static let usb = RouteTests.usb
    static let a2dp = RouteTests.a2dp
    static let hfp = RouteTests.hfp
    static let hfpMic = RouteTests.hfpMic

    /// Music on a headset in A2DP, the headset the last device plugged in.
    static func musicOnTheHeadset() -> (EngineHarness, SessionID) {
        var h = EngineHarness(.desktop)
        h.send(.devicesEnumerated([speaker, mic], defaultOutput: "speaker", defaultInput: "mic"))
        h.send(.deviceAdded(a2dp))
        h.send(.deviceProfileReported(device: "bt", profile: "a2dp-sink", saved: false))
        let player = h.implicit(1, .playback, capabilities: [.mpris, .unlink, .mute])
        _ = h.play(player)
        #expect(h.engine.route(for: player)?.outputs == [a2dp])
        return (h, player)
    }

    /// The headset says which profile it switched to, as a server reports it after the new
    /// profile's nodes.
    static func reported(_ profile: String, saved: Bool = false) -> PolicyEvent {
        .deviceProfileReported(device: "bt", profile: profile, saved: saved)
    }

    /// A whole switch to HFP, reported and past its bound, as a server and the timer give it.
    static func switchToHFP(_ h: inout EngineHarness) {
        h.send(.deviceSwitchingProfile(uid: a2dp.uid))
        h.send(.deviceAdded(hfp))
        h.send(.deviceAdded(hfpMic))
        h.send(reported("headset-head-unit"))
        h.send(.profileSwitchEnded(device: "bt", switch: 1))
    }

    /// From HFP back to A2DP, reported (saved as its user's choice with `saved`): its decisions.
    static func switchBackToA2DP(_ h: inout EngineHarness, saved: Bool = false) -> [PolicyDecision] {
        var back = h.send(.deviceSwitchingProfile(uid: hfp.uid))
        back += h.send(.deviceSwitchingProfile(uid: hfpMic.uid))
        back += h.send(.deviceAdded(a2dp))
        back += h.send(reported("a2dp-sink", saved: saved))
        return back
    }

    static func links(_ decisions: [PolicyDecision], _ id: SessionID) -> [RouteDescription] {
        decisions.compactMap { if case .link(id, let route) = $0 { route } else { nil } }
    }

    static func pauses(_ decisions: [PolicyDecision]) -> Bool {
        decisions.contains { if case .pauseForRouteLoss = $0 { true } else { false } }
    }

    @Test func aSwitchToHFPIsOneRouteChangeAndPausesNothing() {
        var (h, player) = Self.musicOnTheHeadset()
        let leaving = h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        #expect(leaving == [.awaitProfileSwitch(device: "bt", switch: 1, within: ProfileSwitch.bound)], "nothing changes until the new ports come")
        let sink = h.send(.deviceAdded(Self.hfp))
        #expect(Self.links(sink, player).map(\.outputs) == [[Self.hfp]], "linked as soon as the new sink is there")
        #expect(sink.routeReasons(player).isEmpty, "told once the headset says why")
        #expect(h.engine.route(for: player)?.outputs == [Self.hfp], "the headset is still the user's output")
        let source = h.send(.deviceAdded(Self.hfpMic))
        let report = h.send(Self.reported("headset-head-unit"))
        #expect((sink + source + report).routeReasons(player) == [.routeConfigurationChange], "one route change in all")
        #expect(!Self.pauses(leaving + sink + source + report))
        #expect(h.isPlaying(player))
        #expect(h.send(.profileSwitchEnded(device: "bt", switch: 1)).isEmpty, "every port was replaced")
    }

    @Test func andBackToA2DPIsOneRouteChangeToo() {
        var (h, player) = Self.musicOnTheHeadset()
        Self.switchToHFP(&h)
        var back = Self.switchBackToA2DP(&h)
        back += h.send(.profileSwitchEnded(device: "bt", switch: 1))
        #expect(back.routeReasons(player) == [.routeConfigurationChange])
        #expect(h.engine.route(for: player)?.outputs == [Self.a2dp])
        #expect(!Self.pauses(back))
        #expect(h.isPlaying(player))
    }

    /// A call's headset given back its music profile within the bound of the switch to HFP: the
    /// first switch's end must not take the second's leaving port for an unplug.
    @Test func aSwitchBackWithinTheBoundHasABoundOfItsOwn() {
        var (h, player) = Self.musicOnTheHeadset()
        h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        h.send(.deviceAdded(Self.hfp))
        h.send(.deviceAdded(Self.hfpMic))
        var back = h.send(.deviceSwitchingProfile(uid: Self.hfp.uid))
        #expect(back.contains(.awaitProfileSwitch(device: "bt", switch: 2, within: ProfileSwitch.bound)))
        // The first switch's route change, never reported, is told as the second begins.
        #expect(back.routeReasons(player) == [.routeConfigurationChange])
        back = []
        back += h.send(.deviceSwitchingProfile(uid: Self.hfpMic.uid))
        back += h.send(.profileSwitchEnded(device: "bt", switch: 1))  // the first bound ends mid-switch
        #expect(!Self.pauses(back), "\(back)")
        back += h.send(.deviceAdded(Self.a2dp))
        back += h.send(Self.reported("a2dp-sink"))
        #expect(back.routeReasons(player) == [.routeConfigurationChange])
        #expect(h.send(.profileSwitchEnded(device: "bt", switch: 2)).isEmpty)
        #expect(h.engine.route(for: player)?.outputs == [Self.a2dp])
        #expect(h.isPlaying(player))
    }

    /// The user picked the profile in a mixer and saved it (`save = true`): an override of the
    /// route, as iOS reports a route its user chose.
    @Test func aProfileTheUserSavedIsAnOverride() {
        var (h, player) = Self.musicOnTheHeadset()
        var decisions = h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        decisions += h.send(.deviceAdded(Self.hfp))
        decisions += h.send(Self.reported("headset-head-unit", saved: true))
        decisions += h.send(.deviceAdded(Self.hfpMic))
        #expect(decisions.routeReasons(player) == [.override])
        #expect(!Self.pauses(decisions))
        #expect(h.send(.profileSwitchEnded(device: "bt", switch: 1)).routeReasons(player).isEmpty, "told once")
    }

    /// A report of the profile the device had (a param read before the switch, answered late)
    /// is not the new profile's: the switch waits on for its own.
    @Test func aLateReportOfTheOldProfileIsNotTheNewOnes() {
        var (h, player) = Self.musicOnTheHeadset()
        h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        h.send(.deviceAdded(Self.hfp))
        #expect(h.send(Self.reported("a2dp-sink", saved: true)).routeReasons(player).isEmpty)
        #expect(h.send(Self.reported("headset-head-unit")).routeReasons(player) == [.routeConfigurationChange])
    }

    /// Switched to a profile with fewer ports (A2DP has no microphone) and on again within the
    /// bound: the HFP microphone that left is still awaited, yet the A2DP sink leaving is a new
    /// switch, with its own reason.
    @Test func aSwitchAfterOneThatLeftAPortBehindHasItsOwnReason() {
        var (h, player) = Self.musicOnTheHeadset()
        Self.switchToHFP(&h)
        let toA2DP = Self.switchBackToA2DP(&h, saved: true)
        #expect(toA2DP.routeReasons(player) == [.override])
        var again = h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        #expect(again.contains(.awaitProfileSwitch(device: "bt", switch: 2, within: ProfileSwitch.bound)))
        again += h.send(.deviceAdded(Self.hfp))
        again += h.send(Self.reported("headset-head-unit"))
        #expect(again.routeReasons(player) == [.routeConfigurationChange], "not the last switch's override")
        #expect(!Self.pauses(toA2DP + again))
    }

    /// A device that never says which profile it switched to: its sessions hear the change
    /// when the bound ends, with the reason of a change without a plug.
    @Test func aSwitchNobodyReportsIsToldWhenItsBoundEnds() {
        var (h, player) = Self.musicOnTheHeadset()
        h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        #expect(h.send(.deviceAdded(Self.hfp)).routeReasons(player).isEmpty)
        let ended = h.send(.profileSwitchEnded(device: "bt", switch: 1))
        #expect(ended.routeReasons(player) == [.routeConfigurationChange])
        #expect(!Self.pauses(ended))
        #expect(h.isPlaying(player))
    }

    @Test func aSwitchIsNeverAPlug() {
        // The USB DAC came after the headset: it stays the output when the headset switches.
        var (h, player) = Self.musicOnTheHeadset()
        h.send(.deviceAdded(Self.usb))
        #expect(h.engine.route(for: player)?.outputs == [Self.usb])
        var decisions = h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        decisions += h.send(.deviceAdded(Self.hfp))
        decisions += h.send(.deviceAdded(Self.hfpMic))
        #expect(decisions.routeReasons(player).isEmpty)
        #expect(h.engine.route(for: player)?.outputs == [Self.usb])
    }

    @Test func aHeadsetSwitchedOffIsUnpluggedWhenTheBoundEnds() {
        var (h, player) = Self.musicOnTheHeadset()
        #expect(!Self.pauses(h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))))
        let ended = h.send(.profileSwitchEnded(device: "bt", switch: 1))
        #expect(ended.routeReasons(player) == [.oldDeviceUnavailable])
        #expect(ended.contains(.pauseForRouteLoss(player, method: .mpris)), "pause on unplug, as for a disconnect")
        #expect(h.engine.route(for: player)?.outputs == [Self.speaker])
    }

    @Test func aHeadsetThatDisconnectsMidSwitchIsUnpluggedAtOnce() {
        var (h, player) = Self.musicOnTheHeadset()
        h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        let gone = h.send(.deviceRemoved(uid: Self.a2dp.uid))
        #expect(gone.contains(.pauseForRouteLoss(player, method: .mpris)))
        #expect(h.send(.profileSwitchEnded(device: "bt", switch: 1)).isEmpty)
    }

    @Test func aCallKeepsHFPAndMusicPrefersA2DPOnOneDevice() {
        var h = EngineHarness(.desktop)
        // Not on PipeWire (one profile at a time), but PulseAudio's cards may list both.
        h.send(.devicesEnumerated([Self.speaker, Self.mic, Self.hfp, Self.hfpMic, Self.a2dp], defaultOutput: nil, defaultInput: nil))
        let music = h.explicit(1, .playback)
        let voip = h.explicit(2, .playAndRecord, mode: .voiceChat)
        let plain = h.explicit(3, .playAndRecord)
        #expect(h.engine.route(for: music)?.outputs == [Self.a2dp])
        #expect(h.engine.route(for: voip)?.outputs == [Self.hfp])
        #expect(h.engine.route(for: plain)?.outputs == [Self.speaker], "no Bluetooth option: the built-in route")
    }
}
