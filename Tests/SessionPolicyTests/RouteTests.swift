import Testing
@testable import SessionPolicy

/// Reference §1 and §6: last in wins, multiRoute, defaultToSpeaker, override, preferred input.
@Suite struct RouteTests {
    static let speaker = Port(uid: "speaker", nodeID: 1, type: .builtInSpeaker, direction: .output)
    static let receiver = Port(uid: "receiver", nodeID: 2, type: .builtInReceiver, direction: .output)
    static let headphones = Port(uid: "headphones", nodeID: 3, type: .headphones, direction: .output)
    static let usb = Port(uid: "usb", nodeID: 4, type: .usbAudio, direction: .output)
    static let hdmi = Port(uid: "hdmi", nodeID: 5, type: .HDMI, direction: .output)
    static let mic = Port(uid: "mic", nodeID: 6, type: .builtInMic, direction: .input)
    static let headsetMic = Port(uid: "headset-mic", nodeID: 7, type: .headsetMic, direction: .input)
    static let usbMic = Port(uid: "usb-mic", nodeID: 8, type: .usbAudio, direction: .input)
    static let a2dp = Port(uid: "bt-a2dp", nodeID: 9, type: .bluetoothA2DP, direction: .output, deviceID: "bt")
    static let hfp = Port(uid: "bt-hfp", nodeID: 10, type: .bluetoothHFP, direction: .output, deviceID: "bt")
    static let hfpMic = Port(uid: "bt-hfp-mic", nodeID: 11, type: .bluetoothHFP, direction: .input, deviceID: "bt")

    @Test func lastInWins() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.mic], defaultOutput: "speaker", defaultInput: "mic"))
        let player = h.explicit(1, .playback)
        h.activate(player)
        _ = h.play(player)
        #expect(h.engine.route(for: player)?.outputs == [Self.speaker])
        let plug = h.send(.deviceAdded(Self.headphones))
        #expect(plug.links(player) == [RouteDescription(outputs: [Self.headphones])])
        #expect(plug.routeReasons(player) == [.newDeviceAvailable])
        h.send(.deviceAdded(Self.usb))
        #expect(h.engine.route(for: player)?.outputs == [Self.usb])
        let choose = h.send(.defaultDeviceChanged(.output, uid: "headphones"))
        #expect(choose.routeReasons(player) == [.override])  // the user's choice
        #expect(h.engine.route(for: player)?.outputs == [Self.headphones])
        let unplug = h.send(.deviceRemoved(uid: "headphones"))
        #expect(unplug.routeReasons(player) == [.oldDeviceUnavailable])
        #expect(h.engine.route(for: player)?.outputs == [Self.usb])
    }

    @Test func jackSensingActsLikePlugAndUnplug() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.headphones], defaultOutput: "speaker", defaultInput: nil))
        let player = h.explicit(1, .playback)
        #expect(h.send(.portAvailabilityChanged(uid: "headphones", available: false)).isEmpty)  // not in its route
        #expect(h.send(.portAvailabilityChanged(uid: "headphones", available: true)).routeReasons(player) == [.newDeviceAvailable])
        #expect(h.send(.portAvailabilityChanged(uid: "headphones", available: false)).routeReasons(player) == [.oldDeviceUnavailable])
    }

    @Test func multiRouteUsesEveryEligibleOutput() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.usb, Self.headphones, Self.hdmi, Self.mic], defaultOutput: nil, defaultInput: nil))
        let daw = h.explicit(1, .multiRoute)
        let outputs = Set(h.engine.route(for: daw)!.outputs.map(\.uid))
        #expect(outputs == ["usb", "headphones", "hdmi"])
        #expect(h.engine.route(for: daw)?.inputs == [Self.mic])
        var alone = EngineHarness()
        alone.send(.devicesEnumerated([Self.speaker], defaultOutput: nil, defaultInput: nil))
        let solo = alone.explicit(1, .multiRoute)
        #expect(alone.engine.route(for: solo)?.outputs == [Self.speaker])
    }

    @Test func defaultToSpeakerPicksSpeakerOverReceiver() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.receiver, Self.speaker, Self.mic], defaultOutput: "speaker", defaultInput: "mic"))
        let call = h.explicit(1, .playAndRecord)
        let speakerCall = h.explicit(2, .playAndRecord, options: .defaultToSpeaker)
        let video = h.explicit(3, .playAndRecord, mode: .videoChat)
        let music = h.explicit(4, .playback)
        #expect(h.engine.route(for: call)?.outputs == [Self.receiver])
        #expect(h.engine.route(for: speakerCall)?.outputs == [Self.speaker])
        #expect(h.engine.route(for: video)?.outputs == [Self.speaker])
        #expect(h.engine.route(for: music)?.outputs == [Self.speaker])
    }

    @Test func overrideOutputLastsUntilTheNextRouteChange() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.headphones, Self.mic], defaultOutput: "headphones", defaultInput: "mic"))
        let call = h.explicit(1, .playAndRecord)
        let music = h.explicit(2, .playback)
        #expect(h.send(.overrideOutputAudioPort(music, .speaker)).failure(music) == .incompatibleCategory)
        let override = h.send(.overrideOutputAudioPort(call, .speaker))
        #expect(override.routeReasons(call) == [.override])
        #expect(h.engine.route(for: call)?.outputs == [Self.speaker])
        h.send(.deviceAdded(Self.usb))
        #expect(h.engine.snapshot(of: call)?.outputOverride == OutputOverride.none)
        #expect(h.engine.route(for: call)?.outputs == [Self.usb])
    }

    @Test func preferredInputWinsUntilANewMicIsPlugged() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.mic, Self.usbMic], defaultOutput: nil, defaultInput: "usb-mic"))
        let recorder = h.explicit(1, .record)
        let player = h.explicit(2, .playback)
        #expect(h.engine.route(for: recorder)?.inputs == [Self.usbMic])
        #expect(h.engine.availableInputs(for: player).isEmpty)
        #expect(h.send(.setPreferredInput(player, portUID: "mic")).failure(player) == .incompatibleCategory)
        #expect(h.send(.setPreferredInput(recorder, portUID: "nope")).failure(recorder) == .badParam)
        h.send(.setPreferredInput(recorder, portUID: "mic"))
        #expect(h.engine.route(for: recorder)?.inputs == [Self.mic])
        h.send(.deviceAdded(Self.headsetMic))
        #expect(h.engine.snapshot(of: recorder)?.preferredInputUID == nil)
        #expect(h.engine.route(for: recorder)?.inputs == [Self.headsetMic])
    }

    @Test func noSuitableRouteForCategory() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.mic], defaultOutput: nil, defaultInput: nil))
        let recorder = h.explicit(1, .record)
        h.activate(recorder)
        let gone = h.send(.deviceRemoved(uid: "mic"))
        #expect(gone.routeReasons(recorder) == [.noSuitableRouteForCategory])
        #expect(h.engine.route(for: recorder)?.isEmpty == true)
    }

    @Test func bluetoothProfilesFollowOptions() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.mic, Self.a2dp, Self.hfp, Self.hfpMic], defaultOutput: nil, defaultInput: nil))
        let music = h.explicit(1, .playback)
        let plainCall = h.explicit(2, .playAndRecord, options: .defaultToSpeaker)
        let voip = h.explicit(3, .playAndRecord, mode: .voiceChat)
        let a2dpCall = h.explicit(4, .playAndRecord, options: .allowBluetoothA2DP)
        #expect(h.engine.route(for: music)?.outputs == [Self.a2dp])
        #expect(h.engine.route(for: plainCall)?.outputs == [Self.speaker])
        #expect(h.engine.route(for: plainCall)?.inputs == [Self.mic])
        // voiceChat implies allowBluetooth: HFP, and HFP wins over A2DP on one device.
        #expect(h.engine.route(for: voip)?.outputs == [Self.hfp])
        #expect(h.engine.route(for: voip)?.inputs == [Self.hfpMic])
        #expect(h.engine.route(for: a2dpCall)?.outputs == [Self.a2dp])
    }

    @Test func categoryChangeWhileActiveReportsCategoryChange() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.mic], defaultOutput: nil, defaultInput: nil))
        let session = h.explicit(1, .playback)
        h.activate(session)
        _ = h.play(session)
        let change = h.send(.setCategory(session, .playAndRecord, mode: .default, options: .defaultToSpeaker))
        #expect(change.routeReasons(session) == [.categoryChange])
        #expect(change.links(session) == [RouteDescription(inputs: [Self.mic], outputs: [Self.speaker])])
    }

    @Test func wakeFromSleep() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker], defaultOutput: nil, defaultInput: nil))
        let session = h.explicit(1, .playback)
        let idle = h.explicit(2, .playback)
        h.activate(session)
        h.send(.sleep)
        let wake = h.send(.wake)
        #expect(wake.routeReasons(session) == [.wakeFromSleep])
        #expect(wake.routeReasons(idle).isEmpty)
    }

    @Test func newStreamIsLinkedToTheSessionRoute() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.headphones], defaultOutput: "headphones", defaultInput: nil))
        let player = h.implicit(1, .playback)
        let start = h.send(.streamStarted(player, StreamID(.playback, 5)))
        #expect(start.links(player) == [RouteDescription(outputs: [Self.headphones])])
    }
}

/// Devices present at start-up are not newly available: the default is the configured one,
/// else the highest priority, whatever order they were enumerated in.
struct StartupDefaultTests {
    let high = Port(uid: "usb", nodeID: 1, type: .usbAudio, direction: .output, priority: 2000)
    let low = Port(uid: "speaker", nodeID: 2, type: .builtInSpeaker, direction: .output, priority: 1900)

    @Test(arguments: [true, false])
    func theHighestPriorityIsTheDefaultWhateverTheOrder(_ highFirst: Bool) {
        var h = EngineHarness()
        h.send(.devicesEnumerated(highFirst ? [high, low] : [low, high], defaultOutput: nil, defaultInput: nil))
        #expect(h.engine.availablePorts.first?.uid == "usb")
    }

    @Test(arguments: [true, false])
    func aConfiguredDefaultWinsOverPriority(_ highFirst: Bool) {
        var h = EngineHarness()
        h.send(.devicesEnumerated(highFirst ? [high, low] : [low, high], defaultOutput: "speaker", defaultInput: nil))
        #expect(h.engine.availablePorts.first?.uid == "speaker")
    }

    @Test func aDeviceThatAppearsLaterStillWins() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([high], defaultOutput: nil, defaultInput: nil))
        h.send(.deviceAdded(low))
        #expect(h.engine.availablePorts.first?.uid == "speaker", "last in wins for a device that appears later")
    }
}
