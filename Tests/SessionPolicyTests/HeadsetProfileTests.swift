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

        h.advance(by: .seconds(60))
        let ended = h.deactivate(call, notifyOthers: true)
        #expect(Self.switches(ended).isEmpty, "kept a moment")
        #expect(ended.contains(.awaitHeadsetReturn(after: PolicyEngine.headsetReturnDelay)))
        h.advance(by: PolicyEngine.headsetReturnDelay)
        #expect(Self.switches(h.send(.headsetReturnDue)) == [nil], "its own profile back")
    }

    @Test func aCallThatComesBackWithinTheDelayKeepsHFP() {
        var h = Self.headsetOn()
        let call = h.explicit(1, .playAndRecord, mode: .voiceChat, class: .communication)
        #expect(Self.switches(h.activate(call)) == [.call])
        _ = h.deactivate(call, notifyOthers: false)
        h.advance(by: .milliseconds(500))
        #expect(Self.switches(h.activate(call)).isEmpty)
        h.advance(by: .seconds(2))
        #expect(Self.switches(h.send(.headsetReturnDue)).isEmpty, "the call runs")
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
}
