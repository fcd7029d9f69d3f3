import Testing
@testable import SessionPolicy

/// Which new devices take over (an ignore list, per category), the user's default
/// choice as an override that never pauses, and route changes of implicit sessions.
@Suite struct RouteTakeoverTests {
    static let speaker = Port(uid: "speaker", nodeID: 1, type: .builtInSpeaker, direction: .output)
    static let headphones = Port(uid: "card:analog-output-headphones", nodeID: 1, type: .headphones, direction: .output)
    static let usb = Port(uid: "usb", nodeID: 4, type: .usbAudio, direction: .output)
    static let hdmi = Port(uid: "hdmi", nodeID: 5, type: .HDMI, direction: .output)
    static let mic = Port(uid: "mic", nodeID: 6, type: .builtInMic, direction: .input)

    @Test func hdmiDoesNotTakeOverButUSBDoes() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.mic], defaultOutput: "speaker", defaultInput: "mic"))
        let music = h.implicit(1, .playback)
        _ = h.play(music)
        #expect(h.send(.deviceAdded(Self.hdmi)).links(music).isEmpty)
        #expect(h.engine.route(for: music)?.outputs == [Self.speaker])
        #expect(h.engine.availablePorts.map(\.uid).contains("hdmi"))
        let plug = h.send(.deviceAdded(Self.usb))
        #expect(plug.links(music) == [RouteDescription(outputs: [Self.usb])])
        #expect(plug.routeReasons(music) == [.newDeviceAvailable])
        // Alone, an ignored type is still used rather than nothing.
        h.send(.deviceRemoved(uid: "usb"))
        h.send(.deviceRemoved(uid: "speaker"))
        #expect(h.engine.route(for: music)?.outputs == [Self.hdmi])
    }

    @Test func hdmiEnumeratedLastDoesNotWinEither() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.hdmi], defaultOutput: nil, defaultInput: nil))
        let music = h.implicit(1, .playback)
        #expect(h.engine.route(for: music)?.outputs == [Self.speaker])
    }

    @Test func theIgnoreListIsConfigurable() {
        var configuration = PolicyConfiguration.desktop
        configuration.routeTakeoverIgnoredTypes = []
        var h = EngineHarness(configuration)
        h.send(.devicesEnumerated([Self.speaker], defaultOutput: nil, defaultInput: nil))
        let music = h.implicit(1, .playback)
        _ = h.play(music)
        #expect(h.send(.deviceAdded(Self.hdmi)).links(music) == [RouteDescription(outputs: [Self.hdmi])])
    }

    @Test func categoriesOutsideTheTakeoverListStayWhileTheirRouteExists() {
        var configuration = PolicyConfiguration.desktop
        configuration.routeTakeoverCategories = [.playback]
        var h = EngineHarness(configuration)
        h.send(.devicesEnumerated([Self.speaker, Self.mic], defaultOutput: "speaker", defaultInput: "mic"))
        let music = h.implicit(1, .playback)
        let game = h.implicit(2, .ambient)
        _ = h.play(music)
        _ = h.play(game)
        let plug = h.send(.deviceAdded(Self.usb))
        #expect(plug.links(music) == [RouteDescription(outputs: [Self.usb])])
        #expect(plug.links(game).isEmpty)
        #expect(h.engine.route(for: game)?.outputs == [Self.speaker])
        // Its own route gone, it moves like everyone else.
        h.send(.deviceRemoved(uid: "speaker"))
        #expect(h.engine.route(for: game)?.outputs == [Self.usb])
    }

    @Test func aSessionPlayingOnlyOnATargetItNamedIsNotPausedWhenItsRouteGoes() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.usb], defaultOutput: "usb", defaultInput: nil))
        let radio = h.implicit(1, .playback, capabilities: [.unlink, .mute])
        let jukebox = h.implicit(2, .playback, capabilities: [.unlink, .mute])
        let elsewhere = h.play(radio)
        let there = h.play(jukebox)
        h.send(.streamPinned(elsewhere, to: Self.speaker.device))  // `--target speaker`
        h.send(.streamPinned(there, to: Self.usb.device))  // its own target, the route's device
        let unplug = h.send(.deviceRemoved(uid: "usb"))
        #expect(!unplug.contains { if case .pauseForRouteLoss(radio, _) = $0 { true } else { false } })
        #expect(h.isPlaying(radio), "it plays on where it named")
        #expect(unplug.contains(.pauseForRouteLoss(jukebox, method: .unlink)))
        // Once it follows its route again, it is paused like any other.
        h.send(.deviceAdded(Self.usb))
        h.send(.streamPinned(elsewhere, to: nil))
        #expect(h.send(.deviceRemoved(uid: "usb")).contains(.pauseForRouteLoss(radio, method: .unlink)))
    }

    @Test func jackUnplugPausesAPlayingImplicitSessionWithItsPreviousRoute() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.headphones], defaultOutput: nil, defaultInput: nil))
        let music = h.implicit(1, .playback, capabilities: [.unlink, .mute])
        _ = h.play(music)
        #expect(h.engine.route(for: music)?.outputs == [Self.headphones])
        let unplug = h.send(.portAvailabilityChanged(uid: Self.headphones.uid, available: false))
        #expect(unplug.contains(.routeChanged(music, reason: .oldDeviceUnavailable, previous: RouteDescription(outputs: [Self.headphones]))))
        #expect(unplug.contains(.pauseForRouteLoss(music, method: .unlink)))
        #expect(h.engine.route(for: music)?.outputs == [Self.speaker])
        // Plugged back: the route moves there, nothing plays by itself.
        let plug = h.send(.portAvailabilityChanged(uid: Self.headphones.uid, available: true))
        #expect(plug.routeReasons(music) == [.newDeviceAvailable])
        #expect(!plug.contains(.activated(music)))
    }

    @Test func theUsersDefaultChoiceIsAnOverrideAndNeverPauses() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.usb], defaultOutput: "usb", defaultInput: nil))
        let music = h.implicit(1, .playback, capabilities: [.unlink, .mute])
        _ = h.play(music)
        let choose = h.send(.defaultDeviceChanged(.output, uid: "speaker"))
        #expect(choose.contains(.routeChanged(music, reason: .override, previous: RouteDescription(outputs: [Self.usb]))))
        #expect(!choose.contains { if case .pauseForRouteLoss = $0 { true } else { false } })
        #expect(h.isPlaying(music))
    }

    @Test func categoryChangeOfAnImplicitSessionIsReported() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.mic], defaultOutput: nil, defaultInput: nil))
        let app = h.implicit(1, .playback)
        _ = h.play(app)
        let change = h.send(.reclassify(app, Classification(category: .playAndRecord, options: .defaultToSpeaker, priorityClass: .media)))
        #expect(change.routeReasons(app) == [.categoryChange])
    }

    @Test func anActiveImplicitSessionHearsWakeFromSleep() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker], defaultOutput: nil, defaultInput: nil))
        let music = h.implicit(1, .playback)
        let idle = h.implicit(2, .playback)
        _ = h.play(music)
        h.send(.sleep)
        let wake = h.send(.wake)
        #expect(wake.contains(.routeChanged(music, reason: .wakeFromSleep, previous: RouteDescription(outputs: [Self.speaker]))))
        #expect(wake.routeReasons(idle).isEmpty)
    }

    @Test func aPortsNewConfigurationIsARouteConfigurationChange() {
        var h = EngineHarness()
        h.send(.devicesEnumerated([Self.speaker, Self.usb], defaultOutput: "usb", defaultInput: nil))
        let music = h.implicit(1, .playback)
        _ = h.play(music)
        var surround = Self.usb
        surround.channels = 6
        let change = h.send(.portChanged(surround))
        #expect(change.contains(.routeChanged(music, reason: .routeConfigurationChange, previous: RouteDescription(outputs: [Self.usb]))))
        #expect(change.links(music) == [RouteDescription(outputs: [surround])])
        #expect(h.send(.portChanged(surround)).isEmpty)
        // It keeps its place: still the last in.
        #expect(h.engine.availablePorts.first?.uid == "usb")
    }
}
