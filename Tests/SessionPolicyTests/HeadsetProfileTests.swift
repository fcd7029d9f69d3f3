import Testing
@testable import SessionPolicy

/// Calls on a Bluetooth headset: a call with `allowBluetooth` (voiceChat) switches the headset
/// its user has on to HFP, and it gets its profile back a moment after the call.
@Suite struct HeadsetProfileTests {
    static let speaker = RouteTests.speaker
    static let mic = RouteTests.mic
    static let usb = RouteTests.usb
    static let a2dp = RouteTests.a2dp
    static let hfp = RouteTests.hfp
    static let hfpMic = RouteTests.hfpMic

    /// A headset in A2DP, the last output in.
    static func headsetOn() -> EngineHarness {
        var h = EngineHarness(.desktop)
        h.send(.devicesEnumerated([speaker, mic], defaultOutput: "speaker", defaultInput: "mic"))
        h.send(.deviceAdded(a2dp))
        h.send(.headsetProfilesChanged(device: "bt", HeadsetProfiles(canCall: true, active: .media)))
        return h
    }

    static func switches(_ decisions: [PolicyDecision]) -> [HeadsetProfile?] {
        decisions.compactMap { if case .selectHeadsetProfile("bt", let profile) = $0 { profile } else { nil } }
    }

    @Test func aVoiceChatTakesTheHeadsetToHFPAndGivesItBackAfterTheDelay() {
        var h = Self.headsetOn()
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(Self.switches(h.activate(call)) == [.call])
        // The switch: the A2DP sink goes, the HFP sink and microphone come; the call is on them.
        h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        h.send(.deviceAdded(Self.hfp))
        h.send(.deviceAdded(Self.hfpMic))
        h.send(.headsetProfilesChanged(device: "bt", HeadsetProfiles(canCall: true, active: .call)))
        #expect(h.engine.route(for: call)?.outputs == [Self.hfp])
        #expect(h.engine.route(for: call)?.inputs == [Self.hfpMic])
        #expect(h.log.routeReasons(call).last == .categoryChange, "a switch for the call's category")

        h.advance(by: .seconds(60))
        let ended = h.deactivate(call, notifyOthers: true)
        #expect(Self.switches(ended).isEmpty, "kept a moment")
        #expect(ended.contains(.recheckHeadsets(after: PolicyEngine.headsetReturnDelay)))
        h.advance(by: PolicyEngine.headsetReturnDelay)
        #expect(Self.switches(h.send(.headsetRecheckDue)) == [nil], "its own profile back")
    }

    @Test func aCallThatComesBackWithinTheDelayKeepsHFP() {
        var h = Self.headsetOn()
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(Self.switches(h.activate(call)) == [.call])
        _ = h.deactivate(call, notifyOthers: false)
        h.advance(by: .milliseconds(500))
        #expect(Self.switches(h.activate(call)).isEmpty)
        h.advance(by: .seconds(2))
        #expect(Self.switches(h.send(.headsetRecheckDue)).isEmpty, "the call runs")
    }

    @Test func musicARecorderAndACallWithoutTheOptionLeaveTheHeadsetAlone() {
        var h = Self.headsetOn()
        let music = h.explicit(1, .playback)
        let recorder = h.explicit(2, .record)
        let plain = h.explicit(3, .playAndRecord)
        #expect(Self.switches(h.activate(music)).isEmpty)
        #expect(Self.switches(h.activate(recorder)).isEmpty)
        #expect(Self.switches(h.activate(plain)).isEmpty)
        #expect(h.engine.route(for: plain)?.outputs == [Self.speaker], "no Bluetooth option: the built-in route")
    }

    @Test func aRecordingThatAsksForBluetoothTakesTheHeadsetsMicrophone() {
        var h = Self.headsetOn()
        let memo = h.explicit(1, .record, options: .allowBluetooth)
        #expect(Self.switches(h.activate(memo)) == [.call])
        h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        h.send(.deviceAdded(Self.hfp))
        h.send(.deviceAdded(Self.hfpMic))
        #expect(h.engine.route(for: memo)?.inputs == [Self.hfpMic])
    }

    @Test func aHeadsetThatIsNotTheUsersOutputIsLeftAlone() {
        var h = Self.headsetOn()
        h.send(.deviceAdded(Self.usb))  // plugged after the headset: the user listens there now
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(Self.switches(h.activate(call)).isEmpty)
    }

    @Test func aHeadsetWithoutACallProfileIsLeftAlone() {
        var h = Self.headsetOn()
        h.send(.headsetProfilesChanged(device: "bt", HeadsetProfiles(canCall: false, active: .media)))
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(Self.switches(h.activate(call)).isEmpty)
    }

    @Test func aHeadsetThatGoesIsForgotten() {
        var h = Self.headsetOn()
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(Self.switches(h.activate(call)) == [.call])
        #expect(Self.switches(h.send(.headsetProfilesChanged(device: "bt", nil))) == [nil])
    }

    // MARK: - Implicit calls settle first

    /// An app whose streams make it a call (a browser's WebRTC call).
    static func implicitCall(_ h: inout EngineHarness) -> SessionID {
        h.implicit(1, .playAndRecord, mode: .voiceChat, class: .communication, app: "browser")
    }

    @Test func anImplicitCallSwitchesTheHeadsetOnceItHasRunForItsSettleTime() {
        var h = Self.headsetOn()
        let call = Self.implicitCall(&h)
        _ = h.play(call, .capture)
        _ = h.play(call)
        #expect(Self.switches(h.log).isEmpty, "not yet: its streams may still come and go")
        #expect(h.log.contains(.recheckHeadsets(after: PolicyEngine.headsetCallSettleTime)))
        h.advance(by: PolicyEngine.headsetCallSettleTime)
        #expect(Self.switches(h.send(.headsetRecheckDue)) == [.call])
    }

    @Test func aBrowserThatOpensAndClosesItsCallStreamsSwitchesOnceTheyStay() {
        var h = Self.headsetOn()
        let call = Self.implicitCall(&h)
        for _ in 0..<3 {
            // Open both, close both a moment later (Firefox as a call starts).
            let capture = h.play(call, .capture)
            let playback = h.play(call)
            h.advance(by: .milliseconds(150))
            h.send(.streamStopped(capture))
            h.send(.streamStopped(playback))
            h.advance(by: .milliseconds(100))
            h.send(.headsetRecheckDue)
        }
        #expect(Self.switches(h.log).isEmpty, "no switch for streams that did not stay")
        _ = h.play(call, .capture)
        _ = h.play(call)
        h.advance(by: PolicyEngine.headsetCallSettleTime)
        h.send(.headsetRecheckDue)
        #expect(Self.switches(h.log) == [.call], "one switch, once the call's streams stayed")
    }

    // MARK: - Reasons

    @Test func aSwitchSomeoneElseMakesIsARouteConfigurationChangeForTheMusic() {
        var h = Self.headsetOn()
        let music = h.explicit(1, .playback)
        h.activate(music)
        // The user picks HFP in a mixer: nothing of ours asked for it.
        h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        var arrived = h.send(.deviceAdded(Self.hfp))
        arrived += h.send(.deviceProfileReported(device: "bt", profile: "headset-head-unit", saved: false))
        #expect(arrived.routeReasons(music) == [.routeConfigurationChange])
    }

    // MARK: - Another switcher

    @Test func whileAnotherSessionManagerSwitchesHeadsetsTheDaemonOnlyFollows() {
        var h = Self.headsetOn()
        h.send(.headsetsSwitchedElsewhere(true))
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(Self.switches(h.activate(call)).isEmpty, "WirePlumber's autoswitch does it")
        // It goes (or turns its autoswitch off): the running call gets the headset.
        #expect(Self.switches(h.send(.headsetsSwitchedElsewhere(false))) == [.call])
        // It comes back mid-call: the headset is given back, it is theirs to switch.
        #expect(Self.switches(h.send(.headsetsSwitchedElsewhere(true))) == [nil])
    }

    @Test func theSettingDecidesWhoSwitches() {
        var daemon = PolicyConfiguration.desktop
        daemon.headsetProfileSwitching = .daemon
        var never = PolicyConfiguration.desktop
        never.headsetProfileSwitching = .never
        for (configuration, expected) in [(daemon, [HeadsetProfile?.some(.call)]), (never, [])] {
            var h = EngineHarness(configuration)
            h.send(.devicesEnumerated([Self.speaker, Self.mic], defaultOutput: "speaker", defaultInput: "mic"))
            h.send(.deviceAdded(Self.a2dp))
            h.send(.headsetProfilesChanged(device: "bt", HeadsetProfiles(canCall: true, active: .media)))
            h.send(.headsetsSwitchedElsewhere(true))
            let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
            #expect(Self.switches(h.activate(call)) == expected, "\(configuration.headsetProfileSwitching)")
        }
    }

    @Test func aHeadsetSomeoneKeepsTakingOutOfItsCallProfileIsLeftToThemAfterTheLimit() {
        var h = Self.headsetOn()
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(Self.switches(h.activate(call)) == [.call])
        var decisions: [PolicyDecision] = []
        for _ in 0..<PolicyEngine.headsetContestLimit {
            h.send(.headsetProfilesChanged(device: "bt", HeadsetProfiles(canCall: true, active: .call)))
            decisions = h.send(.headsetProfilesChanged(device: "bt", HeadsetProfiles(canCall: true, active: .media)))
        }
        #expect(Self.switches(h.log) == [.call, .call], "switched back once, then left to them")
        #expect(decisions.contains(.headsetProfileContested(device: "bt")))
        #expect(Self.switches(h.send(.headsetProfilesChanged(device: "bt", HeadsetProfiles(canCall: true, active: .media)))).isEmpty)
        // The next call starts afresh.
        _ = h.deactivate(call)
        h.advance(by: PolicyEngine.headsetReturnDelay)
        h.send(.headsetRecheckDue)
        #expect(Self.switches(h.activate(call)) == [.call])
    }

    @Test func aSwitchBackSeenOnlyInTheHeadsetsPortsIsSomeoneElses() {
        var h = Self.headsetOn()
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(Self.switches(h.activate(call)) == [.call])
        h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        h.send(.deviceAdded(Self.hfp))
        // Switched back at once: the params were never read in HFP, but the ports came and went.
        h.send(.deviceSwitchingProfile(uid: Self.hfp.uid))
        var back = h.send(.deviceAdded(Self.a2dp))
        back += h.send(.deviceProfileReported(device: "bt", profile: "a2dp-sink", saved: false))
        #expect(Self.switches(back) == [.call], "switched back: theirs may have been a slip")
        #expect(back.routeReasons(call) == [.routeConfigurationChange], "not a switch of ours")
    }

    // MARK: - The headset's microphone while it plays music

    static let offeredMic = Port(
        uid: "bluez_card.bt:headset-input", nodeID: 0, name: "Headset microphone", type: .bluetoothHFP, direction: .input,
        channels: 1, deviceID: "bt")

    /// A headset in A2DP whose call profile has a microphone, and a USB DAC plugged after it:
    /// the user listens on the DAC.
    static func headsetBesideADAC() -> EngineHarness {
        var h = EngineHarness(.desktop)
        h.send(.devicesEnumerated([speaker, mic], defaultOutput: "speaker", defaultInput: "mic"))
        h.send(.deviceAdded(a2dp))
        h.send(.headsetProfilesChanged(device: "bt", HeadsetProfiles(canCall: true, active: .media, microphone: offeredMic)))
        h.send(.deviceAdded(usb))
        return h
    }

    @Test func theHeadsetsMicrophoneIsOfferedWhileItPlaysMusicAndChoosingItSwitchesTheHeadset() {
        var h = Self.headsetBesideADAC()
        let memo = h.explicit(1, .record, options: .allowBluetooth)
        let plain = h.explicit(2, .record)
        #expect(h.engine.availableInputs(for: memo).contains(Self.offeredMic), "offered, as iOS lists an HFP microphone")
        #expect(!h.engine.availableInputs(for: plain).contains(Self.offeredMic), "not without allowBluetooth")
        #expect(h.send(.setPreferredInput(plain, portUID: Self.offeredMic.uid)).failure(plain) == .badParam)
        #expect(Self.switches(h.activate(memo)).isEmpty, "the headset is not the output its user has now")
        #expect(Self.switches(h.send(.setPreferredInput(memo, portUID: Self.offeredMic.uid))) == [.call], "chosen: switched for it")
        #expect(h.engine.route(for: memo)?.inputs == [Self.mic], "the built-in microphone until the switch is done")
        h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        h.send(.deviceAdded(Self.hfp))
        h.send(.deviceAdded(Self.hfpMic))
        h.send(.headsetProfilesChanged(device: "bt", HeadsetProfiles(canCall: true, active: .call)))
        #expect(h.engine.route(for: memo)?.inputs == [Self.hfpMic], "then the headset's")
        #expect(!h.engine.availableInputs(for: memo).contains(Self.offeredMic), "its real microphone is listed instead")
        _ = h.deactivate(memo)
        h.advance(by: PolicyEngine.headsetReturnDelay)
        #expect(Self.switches(h.send(.headsetRecheckDue)) == [nil], "given back after the delay")
    }

    // MARK: - The music resumes once the headset is back

    /// Music and a voiceChat call on the headset, the call in HFP; returns the two sessions.
    static func musicInterruptedByAHeadsetCall(_ h: inout EngineHarness) -> (music: SessionID, call: SessionID) {
        let music = h.explicit(1, .playback)
        h.activate(music)
        let call = h.explicit(2, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(Self.switches(h.activate(call)) == [.call])
        #expect(h.log.began(music))
        h.send(.deviceSwitchingProfile(uid: Self.a2dp.uid))
        h.send(.deviceAdded(Self.hfp))
        h.send(.deviceAdded(Self.hfpMic))
        h.send(.headsetProfilesChanged(device: "bt", HeadsetProfiles(canCall: true, active: .call)))
        return (music, call)
    }

    @Test func theMusicTheCallInterruptedResumesOnceTheHeadsetIsBackInItsMusicProfile() {
        var h = Self.headsetOn()
        let (music, call) = Self.musicInterruptedByAHeadsetCall(&h)
        let ended = h.deactivate(call, notifyOthers: true)
        #expect(ended.ended(music) == nil, "not yet: the headset is still in its call profile")
        h.advance(by: PolicyEngine.headsetReturnDelay)
        let back = h.send(.headsetRecheckDue)
        #expect(Self.switches(back) == [nil])
        #expect(back.ended(music) == nil, "not yet: the headset is switching back")
        h.send(.sessionRemoved(call))  // its app quit after it ended the call
        h.send(.deviceSwitchingProfile(uid: Self.hfp.uid))
        h.send(.deviceSwitchingProfile(uid: Self.hfpMic.uid))
        h.send(.deviceAdded(Self.a2dp))
        let resumed = h.send(.headsetProfilesChanged(device: "bt", HeadsetProfiles(canCall: true, active: .media)))
        #expect(resumed.ended(music) == .shouldResume, "back in A2DP: the music resumes, on the headset")
        #expect(h.engine.route(for: music)?.outputs == [Self.a2dp])
    }

    @Test func aHeadsetThatDoesNotComeBackHoldsTheMusicNoLongerThanTheBound() {
        var h = Self.headsetOn()
        let (music, call) = Self.musicInterruptedByAHeadsetCall(&h)
        _ = h.deactivate(call, notifyOthers: true)
        h.advance(by: PolicyEngine.headsetReturnDelay)
        #expect(Self.switches(h.send(.headsetRecheckDue)) == [nil])
        h.advance(by: ProfileSwitch.bound)
        #expect(h.send(.headsetRecheckDue).ended(music) == .shouldResume, "waited for no longer than the bound")
    }

    @Test func aCallThatComesBackWithinTheDelayFindsTheMusicStillInterrupted() {
        var h = Self.headsetOn()
        let (music, call) = Self.musicInterruptedByAHeadsetCall(&h)
        _ = h.deactivate(call, notifyOthers: true)
        h.advance(by: .milliseconds(400))
        let again = h.activate(call)
        #expect(again.ended(music) == nil && !again.began(music), "the music never resumed in between")
        #expect(Self.switches(again).isEmpty, "the headset stayed in its call profile")
    }
}
