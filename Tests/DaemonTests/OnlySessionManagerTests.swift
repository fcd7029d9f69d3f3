import Foundation
import PipeWireSandbox
import Testing

/// The daemon as the session manager, with devices nobody else configured: what a kiosk or a
/// car runs, and what a desktop runs with WirePlumber kept for devices only
/// (`contrib/wireplumber/wireplumber.conf.d/90-audiosession-devices-only.conf`). The sandbox
/// leaves its devices as PipeWire makes them: on 1.4 and 1.6 a null sink has no DSP ports (or a
/// converter's single port) until a session manager gives them.
@Suite("audiosessiond as the session manager", .serialized)
struct OnlySessionManagerTests {
    /// Waits until the stream named `name` plays on `device` over links the daemon made, one per
    /// channel, and nobody else's.
    /// On failure it prints the daemon's log, when given.
    static func waitUntilTheDaemonLinks(
        _ name: String, to device: String, channels: Int = 2, in sandbox: PrivatePipeWire, daemon: DaemonProcess? = nil,
        timeout: Duration = .seconds(10)
    ) throws {
        var links: [PipeWireDump.OwnedLink] = []
        try waitUntil(
            timeout: timeout,
            "the daemon alone links '\(name)' to \(device) (links now: \(links); the stream \((try? sandbox.dump().node(named: name)).map { "is node \($0.id), \($0.state ?? "?")" } ?? "is not in the graph"))\(daemon.map { "\nthe daemon's threads: \($0.stacks)\nthe daemon's log:\n\($0.log)" } ?? "")"
        ) {
            links = try sandbox.dump().ownedLinks(of: name).filter { !$0.peer.hasPrefix("audiosession-meter-") }
            return links.count == channels && links.allSatisfy { $0.owner == "audiosessiond" && $0.peer == device }
        }
    }

    /// Every port of the device on the side its adapter faces is a DSP port (`format.dsp`).
    static func hasDSPPorts(_ device: String, direction: String, in dump: PipeWireDump) -> Bool {
        guard let node = dump.node(named: device) else { return false }
        let ports = dump.objects.filter {
            $0.type == "PipeWire:Interface:Port" && $0.property("node.id") == String(node.id)
                && $0.property("port.direction") == direction && $0.property("port.monitor") != "true"
        }
        return !ports.isEmpty && ports.allSatisfy { $0.property("format.dsp") != nil }
    }

    @Test func aloneItGivesDevicesTheirPortsAndLinksPlayersRecordersAndADevicePluggedLater() throws {
        let sandbox = try PrivatePipeWire(configuresDevicePorts: false)
        defer { sandbox.stop() }
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--no-bus"])
        defer { _ = try? daemon.terminate() }
        try waitUntil(timeout: .seconds(10), "the daemon gives every device its DSP ports") {
            let dump = try sandbox.dump()
            return Self.hasDSPPorts("speaker", direction: "in", in: dump) && Self.hasDSPPorts("headphones", direction: "in", in: dump)
                && Self.hasDSPPorts("mic", direction: "in", in: dump)
        }
        let tone = try sandbox.testTone()
        try sandbox.play(role: nil, file: tone, extraArguments: ["-P", "{ node.name = music }"])
        // Last in wins among equals: the headphones, declared after the speaker.
        try Self.waitUntilTheDaemonLinks("music", to: "headphones", in: sandbox)
        let recording = sandbox.directory.appendingPathComponent("memo.wav").path
        try sandbox.spawn("pw-cat", ["-r", "-P", "{ node.name = memo }", recording])
        // The mono mic feeds both channels of the recorder.
        try Self.waitUntilTheDaemonLinks("memo", to: "mic", in: sandbox)

        try sandbox.createNullSink(named: "usb-headset", description: "USB headset")
        try waitUntil(timeout: .seconds(10), "the plugged device gets its DSP ports") {
            Self.hasDSPPorts("usb-headset", direction: "in", in: try sandbox.dump())
        }
        try Self.waitUntilTheDaemonLinks("music", to: "usb-headset", in: sandbox)
        #expect(try daemon.terminate() == 0)
    }
}

/// WirePlumber 0.5 for devices only (the shipped drop-in): it runs its device monitors, card
/// profiles and routes and gives nodes their ports; the daemon in its default `--linking=auto`
/// sees that WirePlumber links nothing, links every stream and provides the `default` metadata.
@Suite("audiosessiond beside WirePlumber 0.5 for devices only", .serialized)
struct WirePlumberForDevicesOnlyTests {
    static let dropIn = [
        "wireplumber.conf.d/90-audiosession-devices-only.conf": WirePlumberCoexistenceTests.repository
            .appendingPathComponent("contrib/wireplumber/wireplumber.conf.d/90-audiosession-devices-only.conf")
    ]

    func sandbox() throws -> PrivatePipeWire {
        if let underTest = try PipeWireInstallation.underTest(), underTest.wirePlumberSeries == .v0_5 {
            return try PrivatePipeWire(installation: underTest, configuresDevicePorts: false)
        }
        return try PrivatePipeWire(
            installation: PipeWireInstallation.backport(packageRoot: PipeWireInstallation.packageRoot), configuresDevicePorts: false)
    }

    /// What WirePlumber's client says it does.
    func services(in dump: PipeWireDump) -> Set<String>? {
        dump.objects.first { $0.type == "PipeWire:Interface:Client" && $0.property("application.name") == "WirePlumber" }?
            .property("session.services")
            .map { Set($0.split(whereSeparator: { "[], ".contains($0) }).map(String.init)) }
    }

    /// Every metadata object and client, for a failure's message.
    static func metadataAndClients(in sandbox: PrivatePipeWire) -> String {
        guard let dump = try? sandbox.dump() else { return "no dump" }
        let metadata = dump.objects.filter { $0.type == "PipeWire:Interface:Metadata" }.map {
            "metadata \($0.id) '\($0.property("metadata.name") ?? "?")' client \($0.property("client.id") ?? "?")"
        }
        let clients = dump.objects.filter { $0.type == "PipeWire:Interface:Client" }.map {
            "client \($0.id) \($0.property("application.process.binary") ?? "?")"
        }
        return (metadata + clients).joined(separator: ", ")
    }

    /// The nodes' ids, ports and links, for a failure's message.
    static func portsAndLinks(of names: [String], in sandbox: PrivatePipeWire) -> String {
        guard let dump = try? sandbox.dump() else { return "no dump" }
        return names.map { name in
            guard let node = dump.node(named: name) else { return "\(name): none" }
            let ports = dump.ports(ofNode: node.id).map(\.id)
            let links = dump.nodeLinks.filter { $0.output == node.id || $0.input == node.id }.map { "\($0.output)→\($0.input)" }
            return "\(name) \(node.id) ports \(ports) links \(links)"
        }.joined(separator: "; ")
    }

    /// WirePlumber with the drop-in, a Bluetooth headset in A2DP, the daemon on a bus, and a
    /// call: implicit (a speaker and a microphone with the `Communication` role), or explicit
    /// (a voiceChat session of `audiosessionctl run` recording).
    struct HeadsetCall {
        let sandbox: PrivatePipeWire
        let bus: PrivateSessionBus
        let headset: BluetoothHeadset
        let daemon: DaemonProcess
        let speaker: ManagedProcess?
        let microphone: ManagedProcess
        /// The headset's profile requests before the call.
        let requestsBefore: Int

        init(_ sandbox: PrivatePipeWire, explicit: Bool = false) throws {
            self.sandbox = sandbox
            _ = try sandbox.startWirePlumber(configuration: WirePlumberForDevicesOnlyTests.dropIn, managingDevicesOnly: true)
            headset = try sandbox.startBluetoothHeadset()
            bus = try PrivateSessionBus()
            daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose"], environment: bus.environment)
            let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
            var said = ""
            try waitUntil(timeout: .seconds(10), "the daemon says it switches headsets (it says '\(said)')") {
                said = (try? oracle.status()["headsetSwitching"] as? String) ?? ""
                return said.hasPrefix("switched by audiosessiond for calls")
            }
            requestsBefore = headset.profileRequests.count
            if explicit {
                speaker = nil
                microphone = try sandbox.spawn(
                    DaemonProcess.path(of: "audiosessionctl"),
                    ["run", "--category", "playAndRecord", "--mode", "voiceChat", "--app", "voip", "--",
                     "pw-record", "-P", "{ node.name = call-mic }", "/dev/null"],
                    extraEnvironment: bus.environment)
            } else {
                let tone = try sandbox.testTone()
                speaker = try sandbox.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
                microphone = try sandbox.spawn(
                    "pw-record", ["--media-role", "Communication", "-P", "{ node.name = call-mic }", "/dev/null"])
            }
            try waitUntil(timeout: .seconds(10), "the headset is in HFP for the call (its profiles: \(headset.profileChanges))") {
                headset.activeProfile.map { BluetoothHeadset.Profile.headsetHeadUnit.matches($0) } == true
            }
        }
    }

    /// Beside WirePlumber with the drop-in (its autoswitch off, as its `sm-settings` say), the
    /// daemon says it switches headsets, and a call takes the headset to HFP and back, switched
    /// by the daemon alone, never saved as the user's choice.
    @Test func besideWirePlumberWithItsAutoswitchOffTheDaemonSwitchesAHeadsetForACall() throws {
        let sandbox = try sandbox()
        defer { sandbox.stop() }
        let call = try HeadsetCall(sandbox)
        defer { call.bus.stop() }
        call.speaker?.terminate()
        call.microphone.terminate()
        try waitUntil(timeout: .seconds(15), "the headset is back in A2DP (its profiles: \(call.headset.profileChanges)); log:\n\(call.daemon.log)") {
            call.headset.activeProfile.map { BluetoothHeadset.Profile.a2dpSink.matches($0) } == true
        }
        let requests = Array(call.headset.profileRequests.dropFirst(call.requestsBefore))
        #expect(requests.count == 2 && requests.allSatisfy { !$0.save }, "ours, to HFP and back: \(requests)")
        #expect(try call.daemon.terminate() == 0)
    }

    /// Beside WirePlumber for devices, a switch someone else makes (a mixer's profile list, a
    /// program: `pw-cli`) is a route change for the music on the headset, not an unplug: it plays
    /// on, on the new profile's sink, and its session hears one route change each way,
    /// `routeConfigurationChange` unsaved and `override` for the user's saved choice.
    @Test func besideWirePlumberASwitchSomeoneMakesIsOneRouteChangeAndPausesNothing() throws {
        let sandbox = try sandbox()
        defer { sandbox.stop() }
        _ = try sandbox.startWirePlumber(configuration: Self.dropIn, managingDevicesOnly: true)
        let headset = try sandbox.startBluetoothHeadset()
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose"], environment: bus.environment)
        defer { _ = try? daemon.terminate() }
        let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
        try waitUntil(timeout: .seconds(10), "the daemon answers on the bus") { (try? oracle.status()) != nil }
        let monitor = try sandbox.spawn(DaemonProcess.path(of: "audiosessionctl"), ["monitor", "--json"], extraEnvironment: bus.environment)
        defer { monitor.terminate() }
        try waitUntil(timeout: .seconds(10), "the monitor watches the daemon") { monitor.output.contains("\"signal\":\"Watching\"") }
        let music = try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try OnlySessionManagerTests.waitUntilTheDaemonLinks("music", to: headset.sinkName, in: sandbox, daemon: daemon)
        let session = try #require(try oracle.session(ofProcess: music.pid))
        let routeChanges = { BluetoothProfileTests.decisions(of: session.id, in: monitor).filter { $0.hasPrefix("routeChanged") } }
        let before = routeChanges().count

        let hfp = headset.shapes.index(of: .headsetHeadUnit), a2dp = headset.shapes.index(of: .a2dpSink)
        try sandbox.run("pw-cli", ["set-param", String(headset.globalID), "Profile", "{ index: \(hfp), save: false }"])
        try waitUntil(timeout: .seconds(10), "the music's session hears the switch to HFP (\(routeChanges()))") { routeChanges().count > before }
        try OnlySessionManagerTests.waitUntilTheDaemonLinks("music", to: headset.sinkName, channels: 2, in: sandbox, daemon: daemon)
        #expect(try sandbox.dump().nodes.first { $0.name == headset.sinkName }?.property("api.bluez5.profile") == "headset-head-unit")
        try sandbox.run("pw-cli", ["set-param", String(headset.globalID), "Profile", "{ index: \(a2dp), save: true }"])
        try waitUntil(timeout: .seconds(10), "the music's session hears the switch back (\(routeChanges()))") { routeChanges().count > before + 1 }
        try OnlySessionManagerTests.waitUntilTheDaemonLinks("music", to: headset.sinkName, in: sandbox, daemon: daemon)
        let decisions = BluetoothProfileTests.decisions(of: session.id, in: monitor)
        #expect(Array(routeChanges().dropFirst(before)) == ["routeChanged routeConfigurationChange", "routeChanged override"], "\(decisions)")
        #expect(!decisions.contains("pauseForRouteLoss") && !decisions.contains { $0.hasPrefix("interruption") }, "\(decisions)")
        #expect(try oracle.session(ofProcess: music.pid)?.activity == "active")
    }

    /// The call, implicit or explicit (voiceChat), records from the headset's HFP microphone
    /// beside WirePlumber as it does alone.
    @Test(arguments: [false, true])
    func besideWirePlumberTheCallRecordsFromTheHeadset(explicit: Bool) throws {
        let sandbox = try sandbox()
        defer { sandbox.stop() }
        let call = try HeadsetCall(sandbox, explicit: explicit)
        defer { call.bus.stop() }
        try waitUntil(timeout: .seconds(10), "the call records from the headset (\(Self.portsAndLinks(of: [call.headset.sourceName, call.headset.sinkName, "call-mic", "call"], in: sandbox))); log:\n\(call.daemon.log)") {
            try sandbox.linkedDevices(of: "call-mic") == [call.headset.sourceName]
        }
    }

    @Test func theDaemonLinksAndChoosesTheDefaultsWhileWirePlumberKeepsTheDevices() throws {
        let sandbox = try sandbox()
        defer { sandbox.stop() }
        let wirePlumber = try sandbox.startWirePlumber(configuration: Self.dropIn, managingDevicesOnly: true)
        let said = try #require(services(in: try sandbox.dump()))
        #expect(said.isSuperset(of: ["audio", "api.alsa", "bluetooth.audio", "policy.device.profile", "policy.device.routes"]),
                "its device monitors, profiles and routes run: \(said)")
        #expect(said.isDisjoint(with: ["policy.linking.standard", "policy.default-nodes"]), "\(said)")
        // The daemon switches headsets for calls: WirePlumber's autoswitch is off, so they never fight.
        var autoswitch: Any?
        try waitUntil(timeout: .seconds(10), "WirePlumber publishes its Bluetooth autoswitch setting") {
            autoswitch = try sandbox.dump().objects.first { $0.property("metadata.name") == "sm-settings" }?.metadata
                .first { $0["key"] as? String == "bluetooth.autoswitch-to-headset-profile" }?["value"]
            return autoswitch != nil
        }
        // pw-dump prints the setting as JSON: a boolean, or the text WirePlumber stored.
        #expect((autoswitch as? Bool) == false || (autoswitch as? String) == "false", "\(autoswitch ?? "none")")
        try waitUntil(timeout: .seconds(10), "WirePlumber gives the devices their DSP ports") {
            let dump = try sandbox.dump()
            return OnlySessionManagerTests.hasDSPPorts("speaker", direction: "in", in: dump)
                && OnlySessionManagerTests.hasDSPPorts("headphones", direction: "in", in: dump)
        }

        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--no-bus"])
        let tone = try sandbox.testTone()
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        try OnlySessionManagerTests.waitUntilTheDaemonLinks("music", to: "headphones", in: sandbox)
        try waitUntil(timeout: .seconds(5), "one default metadata, the daemon's") {
            try sandbox.metadataProviders(named: "default") == ["audiosessiond"]
        }
        // A pulse client with no role, through pipewire-pulse.
        try sandbox.paplay(role: nil, file: tone)
        try waitUntil(timeout: .seconds(10), "paplay plays on the headphones over the daemon's links") {
            let links = try sandbox.dump().ownedLinks(of: "paplay").filter { !$0.peer.hasPrefix("audiosession-meter-") }
            return links.count == 2 && links.allSatisfy { $0.owner == "audiosessiond" && $0.peer == "headphones" }
        }
        // The user's choice of default (pactl set-default-sink, wpctl set-default) is followed.
        try sandbox.run("pw-metadata", ["-n", "default", "0", "default.configured.audio.sink", "{ \"name\": \"speaker\" }"])
        try OnlySessionManagerTests.waitUntilTheDaemonLinks("music", to: "speaker", in: sandbox)

        // Stopped, the daemon takes its links with it; WirePlumber still links nothing.
        #expect(try daemon.terminate() == 0)
        try waitUntil(timeout: .seconds(5), "no links of the daemon's are left") {
            try sandbox.dump().ownedLinks(of: "music").filter { !$0.peer.hasPrefix("audiosession-meter-") }.isEmpty
        }
        #expect(wirePlumber.isRunning)
    }

    /// At log-in both start at once. WirePlumber says what it does a moment after it connects:
    /// until then the daemon takes it for a linking one and hands over, then takes linking back.
    @Test func whenWirePlumberComesLaterTheDaemonKeepsLinking() throws {
        let sandbox = try sandbox()
        defer { sandbox.stop() }
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--no-bus"])
        defer { _ = try? daemon.terminate() }
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try OnlySessionManagerTests.waitUntilTheDaemonLinks("music", to: "headphones", in: sandbox, daemon: daemon)
        let wirePlumber = try sandbox.startWirePlumber(configuration: Self.dropIn, managingDevicesOnly: true)
        try OnlySessionManagerTests.waitUntilTheDaemonLinks("music", to: "headphones", in: sandbox, daemon: daemon)
        var owners: [String] = []
        try waitUntil(timeout: .seconds(5), "one default metadata, the daemon's (now \(owners); \(Self.metadataAndClients(in: sandbox)); the daemon's threads: \(daemon.stacks)); log:\n\(daemon.log)") {
            owners = try sandbox.metadataProviders(named: "default")
            return owners == ["audiosessiond"]
        }
        wirePlumber.terminate()
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music2 }"])
        // The daemon binds WirePlumber's metadata objects, and WirePlumber's exit takes them away:
        // caught by PipeWire's bug of docs/upstream-bugs.md at that moment, the daemon's connection
        // is no longer read, and the bind of the new stream is never answered. The round trip
        // that follows every bind goes unanswered too, and the daemon connects again after its
        // limit for that (10 s): the new stream is linked then, not never.
        try OnlySessionManagerTests.waitUntilTheDaemonLinks(
            "music2", to: "headphones", in: sandbox, daemon: daemon, timeout: .seconds(20))
        try OnlySessionManagerTests.waitUntilTheDaemonLinks("music", to: "headphones", in: sandbox, daemon: daemon)
    }
}
