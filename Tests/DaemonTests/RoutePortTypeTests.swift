import PipeWireGraph
import SessionPolicy
import Testing
@testable import AudioSessionDaemon

/// Port types from node and device properties (reference §6 raw strings), and the port events
/// a card's routes produce: pure, no PipeWire needed.
@Suite struct RoutePortTypeTests {
    func type(_ properties: [String: String], route: String? = nil, _ direction: PortDirection = .output) -> PortType {
        PortTyping.type(of: properties, route: route, direction: direction)
    }

    @Test func alsaRouteNames() {
        let card = ["node.name": "alsa_output.pci-0000_00_1f.3.analog-stereo", "device.api": "alsa", "device.bus": "pci"]
        #expect(type(card, route: "analog-output-speaker") == .builtInSpeaker)
        #expect(type(card, route: "analog-output-headphones") == .headphones)
        #expect(type(card, route: "analog-output-lineout") == .lineOut)
        #expect(type(card, route: "hdmi-output-1") == .HDMI)
        #expect(type(card, route: "iec958-stereo-output") == .lineOut)
        #expect(type(card, route: "analog-input-internal-mic", .input) == .builtInMic)
        #expect(type(card, route: "analog-input-headset-mic", .input) == .headsetMic)
        #expect(type(card, route: "analog-input-mic", .input) == .headsetMic)
        #expect(type(card, route: "analog-input-linein", .input) == .lineIn)
        #expect(PortType.headsetMic.rawValue == "MicrophoneWired" && PortType.HDMI.rawValue == "HDMIOutput")
    }

    /// UCM's route names (laptops whose audio goes through a DSP: SOF, AVS, ...), which carry a
    /// direction prefix and number their HDMI outputs and microphones.
    @Test func ucmRouteNames() {
        let card = ["node.name": "alsa_output.pci-0000_00_1f.3-platform-skl_hda_dsp_generic.HiFi__hw_sofhdadsp_3__sink", "device.api": "alsa", "device.bus": "pci", "device.form-factor": "internal"]
        func ucm(_ route: String, _ description: String, _ direction: PortDirection = .output) -> PortType {
            PortTyping.type(of: card, route: route, routeDescription: description, direction: direction)
        }
        #expect(ucm("[Out] Speaker", "Speaker") == .builtInSpeaker)
        #expect(ucm("[Out] Headphones", "Headphones") == .headphones)
        #expect(ucm("[Out] HDMI1", "HDMI / DisplayPort 1 Output") == .HDMI)
        #expect(ucm("[Out] HDMI3", "HDMI / DisplayPort 3 Output") == .HDMI)
        #expect(ucm("[In] Mic1", "Digital Microphone", .input) == .builtInMic)
        #expect(ucm("[In] Mic2", "Headphones Stereo Microphone", .input) == .headsetMic)
        #expect(ucm("[In] Headset", "Headset Microphone", .input) == .headsetMic)
    }

    @Test func busFormFactorBluetoothAirPlayAndVirtual() {
        #expect(type(["node.name": "alsa_output.usb-DAC.analog-stereo", "device.bus": "usb"]) == .usbAudio)
        #expect(type(["node.name": "alsa_output.usb-DAC.analog-stereo", "device.bus": "usb"], route: "analog-output") == .usbAudio)
        #expect(type(["node.name": "alsa_output.pci.hdmi-stereo"]) == .HDMI)
        #expect(type(["node.name": "x", "device.form-factor": "car"]) == .carAudio)
        #expect(type(["node.name": "x", "device.form-factor": "headset"], .input) == .headsetMic)
        #expect(type(["node.name": "x", "device.form-factor": "internal"], .input) == .builtInMic)
        #expect(type(["node.name": "bluez_output.AA", "device.api": "bluez5", "api.bluez5.profile": "a2dp-sink"]) == .bluetoothA2DP)
        #expect(type(["node.name": "bluez_output.AA", "device.api": "bluez5", "api.bluez5.profile": "headset-head-unit"]) == .bluetoothHFP)
        #expect(type(["node.name": "bluez_output.AA", "device.api": "bluez5", "api.bluez5.profile": "bap-sink"]) == .bluetoothLE)
        #expect(type(["node.name": "raop_sink.kitchen.local", "device.api": "raop"]) == .airPlay)
        #expect(type(["node.name": "speaker", "factory.name": "support.null-audio-sink"]) == .virtual)
        #expect(type(["node.name": "input.loopback-1"]) == .virtual)
        #expect(type(["node.name": "tunnel.remote.host"]) == .virtual)
        #expect(type(["node.name": "mystery"]) == .lineOut)
        #expect(type(["node.name": "mystery"], .input) == .lineIn)
    }

    /// A card sink: one port per output route, available per jack; the active route is the port
    /// the default metadata's node name means.
    @Test func aCardSinkOffersAPortPerRouteAndTheJackFlipsAvailability() {
        var snapshot = Self.card(headphones: .no)
        let sink = snapshot.nodes[2]!
        let offers = PortClassification.offers(for: sink, in: snapshot)
        #expect(offers.map(\.port.uid) == ["card-output:analog-output-speaker", "card-output:analog-output-headphones"])
        #expect(offers.map(\.port.type) == [.builtInSpeaker, .headphones])
        #expect(offers.map(\.available) == [true, false])
        #expect(offers.allSatisfy { $0.port.nodeID == 2 && $0.port.deviceID == "card" })
        #expect(PortClassification.activePort(of: sink, in: snapshot)?.uid == "card-output:analog-output-speaker")

        var tracker = PortTracker<GlobalID>()
        #expect(tracker.attach(to: snapshot).map(\.uid) == ["card-output:analog-output-speaker"])
        snapshot = Self.card(headphones: .yes)
        let plugged = tracker.refresh(snapshot.nodes[2]!, in: snapshot)
        #expect(plugged.count == 1)
        if case .portAppeared(let port) = plugged.first { #expect(port.type == .headphones) } else { Issue.record("\(plugged)") }
        #expect(PortClassification.activePort(of: sink, in: snapshot)?.uid == "card-output:analog-output-headphones")
        snapshot = Self.card(headphones: .no)
        let unplugged = tracker.refresh(snapshot.nodes[2]!, in: snapshot)
        if case .portAvailabilityChanged(let uid, false) = unplugged.first {
            #expect(uid == "card-output:analog-output-headphones")
        } else {
            Issue.record("\(unplugged)")
        }
        #expect(tracker.refresh(snapshot.nodes[2]!, in: snapshot).isEmpty)
        let gone = tracker.removed(2)
        #expect(gone.count == 2)
    }

    /// A known port described differently (a new declared channel count, a renamed route) is a
    /// route configuration change; a count guessed from volumes is not.
    @Test func aNewDescriptionOfAKnownPortIsReported() {
        var snapshot = Self.card(headphones: .yes)
        var tracker = PortTracker<GlobalID>()
        _ = tracker.attach(to: snapshot)
        snapshot.nodes[2]?.props = NodeProps(channelVolumes: [1, 1, 1, 1, 1, 1])
        #expect(tracker.refresh(snapshot.nodes[2]!, in: snapshot).isEmpty)
        snapshot.nodes[2]?.properties["audio.position"] = "[ FL FR FC LFE RL RR ]"
        let surround = tracker.refresh(snapshot.nodes[2]!, in: snapshot)
        #expect(surround.count == 2)
        if case .portChanged(let port) = surround.first { #expect(port.channels == 6) } else { Issue.record("\(surround)") }
        #expect(tracker.refresh(snapshot.nodes[2]!, in: snapshot).isEmpty)
    }

    @Test func portRulesComeFirst() {
        let snapshot = Self.card(headphones: .yes)
        let offers = PortClassification.offers(for: snapshot.nodes[2]!, in: snapshot) { properties in
            properties["device.route.name"] == "analog-output-headphones" ? .carAudio : nil
        }
        #expect(offers.map(\.port.type) == [.builtInSpeaker, .carAudio])
    }

    /// A laptop card in UCM's `HiFi` profile: one profile, two sinks — the speaker and
    /// headphones on card profile device 0, HDMI on device 3 — and `EnumRoute` says which device
    /// each route serves (`devices`), as PipeWire's ALSA card does. Each sink offers only its own
    /// routes: the HDMI sink is no speaker, and the speaker sink no HDMI output.
    @Test func eachSinkOfAProfileOffersOnlyTheRoutesOfItsOwnDevice() {
        let hifi = DeviceProfile(index: 1, name: "HiFi", available: .yes, priority: 8000)
        let routes = [
            Route(index: 0, direction: .output, name: "[Out] Speaker", description: "Speaker", available: .yes, profiles: [1], devices: [0]),
            Route(index: 1, direction: .output, name: "[Out] Headphones", description: "Headphones", available: .no, profiles: [1], devices: [0]),
            Route(index: 2, direction: .output, name: "[Out] HDMI1", description: "HDMI / DisplayPort 1 Output", available: .yes, profiles: [1], devices: [3]),
        ]
        var speakerRoute = routes[0]
        speakerRoute.device = 0
        var hdmiRoute = routes[2]
        hdmiRoute.device = 3
        let device = Device(
            id: 1, name: "alsa_card.pci-0000_00_1f.3-platform-skl_hda_dsp_generic", properties: ["device.api": "alsa"],
            enumRoutes: routes, activeRoutes: [speakerRoute, hdmiRoute], profiles: [hifi], activeProfile: hifi)
        let speaker = Node(
            id: 2, name: "alsa_output.pci-0000_00_1f.3-platform-skl_hda_dsp_generic.HiFi__hw_sofhdadsp__sink", mediaClass: "Audio/Sink",
            deviceID: 1, properties: ["card.profile.device": "0", "device.api": "alsa"])
        let hdmi = Node(
            id: 3, name: "alsa_output.pci-0000_00_1f.3-platform-skl_hda_dsp_generic.HiFi__hw_sofhdadsp_3__sink", mediaClass: "Audio/Sink",
            deviceID: 1, properties: ["card.profile.device": "3", "device.api": "alsa"])
        let snapshot = GraphSnapshot(nodes: [2: speaker, 3: hdmi], devices: [1: device])

        let speakerOffers = PortClassification.offers(for: speaker, in: snapshot)
        #expect(speakerOffers.map(\.port.name) == ["Speaker", "Headphones"])
        #expect(speakerOffers.map(\.port.type) == [.builtInSpeaker, .headphones])
        let hdmiOffers = PortClassification.offers(for: hdmi, in: snapshot)
        #expect(hdmiOffers.map(\.port.name) == ["HDMI / DisplayPort 1 Output"])
        #expect(hdmiOffers.map(\.port.type) == [.HDMI])
        #expect(PortClassification.activePort(of: hdmi, in: snapshot)?.name == "HDMI / DisplayPort 1 Output")
        #expect(PortClassification.dataSources(of: speaker, in: snapshot)?.sources.count == 1, "the speaker only: the headphones are out")
    }

    /// A card switching from its analog profile to HDMI: the HDMI sink comes before the card's
    /// `Profile` is read again, and still says analog. The sink's routes are those of its own card
    /// profile device (ALSA numbers them across profiles), so it is an HDMI port from the start:
    /// typed by the old profile, it would be a speaker that goes a moment later, an unplug of the
    /// port the music had just been moved to.
    @Test func aSinkThatComesBeforeItsCardsProfileIsReadOffersItsOwnRoutes() {
        let analog = DeviceProfile(index: 1, name: "output:analog-stereo+input:analog-stereo", available: .yes, priority: 6565)
        let hdmiProfile = DeviceProfile(index: 2, name: "output:hdmi-stereo", available: .yes, priority: 5900)
        let routes = [
            Route(index: 0, direction: .output, name: "analog-output-speaker", description: "Speakers", available: .yes, profiles: [1], devices: [0]),
            Route(index: 1, direction: .input, name: "analog-input-internal-mic", description: "Internal Microphone", available: .yes, profiles: [1], devices: [1]),
            Route(index: 2, direction: .output, name: "hdmi-output-0", description: "HDMI / DisplayPort", available: .yes, profiles: [2], devices: [2]),
        ]
        let device = Device(
            id: 1, name: "alsa_card.pci-0000_00_1f.3", properties: ["device.api": "alsa"],
            enumRoutes: routes, profiles: [analog, hdmiProfile], activeProfile: analog)
        let hdmi = Node(
            id: 3, name: "alsa_output.pci-0000_00_1f.3.hdmi-stereo", mediaClass: "Audio/Sink",
            deviceID: 1, properties: ["card.profile.device": "2", "device.api": "alsa", "device.profile.name": "hdmi-stereo"])
        let snapshot = GraphSnapshot(nodes: [3: hdmi], devices: [1: device])
        let offers = PortClassification.offers(for: hdmi, in: snapshot)
        #expect(offers.map(\.port.uid) == ["alsa_output.pci-0000_00_1f.3.hdmi-stereo:hdmi-output-0"])
        #expect(offers.map(\.port.type) == [.HDMI])
    }

    static func card(headphones: RouteAvailability) -> GraphSnapshot {
        let routes = [
            Route(index: 0, direction: .output, name: "analog-output-speaker", description: "Speakers", available: .yes, priority: 100),
            Route(index: 1, direction: .output, name: "analog-output-headphones", description: "Headphones", available: headphones, priority: 200),
        ]
        var active = headphones == .yes ? routes[1] : routes[0]
        active.device = 0
        let device = Device(id: 1, name: "card", properties: ["device.name": "card"], enumRoutes: routes, activeRoutes: [active])
        let sink = Node(
            id: 2, name: "card-output", mediaClass: "Audio/Sink", deviceID: 1,
            properties: ["node.name": "card-output", "card.profile.device": "0", "factory.name": "support.null-audio-sink"])
        return GraphSnapshot(nodes: [2: sink], devices: [1: device])
    }
}
