import Foundation
import PipeWireGraph
import PipeWireSandbox
import Testing

extension PipeWireIntegration {
    @Suite struct Mirror {
        @Test func seesTheVirtualDevicesWithTheirPortsAndProps() throws {
            let harness = try GraphHarness()
            let snapshot = try harness.waitForSnapshot("speaker, headphones and mic with ports and Props") { s in
                ["speaker", "headphones", "mic"].allSatisfy { name in
                    guard let node = s.node(named: name) else { return false }
                    return s.hasAllPorts(of: node.id) && node.props != nil
                }
            }
            let speaker = try #require(snapshot.node(named: "speaker"))
            #expect(speaker.isSink && !speaker.isStream)
            #expect(speaker.mediaClass == "Audio/Sink")
            #expect(speaker.displayName == "Speaker")
            #expect(snapshot.ports(of: speaker.id, direction: .input).map(\.channel) == ["FL", "FR"])
            #expect(snapshot.ports(of: speaker.id, direction: .output).allSatisfy { $0.isMonitor })
            #expect(speaker.props?.channelVolumes == [1, 1])
            #expect(speaker.props?.channelMap == ["FL", "FR"])
            #expect(speaker.props?.mute == false)
            let mic = try #require(snapshot.node(named: "mic"))
            #expect(mic.isSource && !mic.isSink)
            #expect(snapshot.ports(of: mic.id, direction: .output).map(\.channel) == ["MONO"])
            // The independent oracle agrees on the set of audio nodes.
            let dumped = Set(try harness.sandbox.dump().nodes.compactMap { $0.mediaClass == nil ? nil : $0.name })
            let mirrored = Set(snapshot.nodes.values.filter { $0.mediaClass != nil }.map(\.name))
            #expect(dumped == mirrored)
            // Everything announced before initialSyncComplete already carried its info.
            let events = harness.events.all
            let complete = try #require(events.firstIndex(of: .initialSyncComplete))
            #expect(events.first == .connected)
            #expect(events[..<complete].contains { if case .added(.node(let n)) = $0 { n.name == "speaker" } else { false } })
        }

        @Test func seesAPlaybackStreamWithRoleApplicationAndState() throws {
            let harness = try GraphHarness()
            let (player, node) = try harness.playStream(role: "Music")
            #expect(node.isStream && node.isPlaybackStream)
            #expect(node.mediaRole == "Music")
            #expect(node.applicationName == "pw-cat")
            let snapshot = harness.graph.snapshot
            let client = try #require(snapshot.client(of: node))
            #expect(client.pid == player.pid)
            #expect(client.applicationName == "pw-cat")
            let dumped = try #require(try harness.sandbox.dump().nodes.first { $0.id == node.id })
            #expect(dumped.state == harness.graph.snapshot.nodes[node.id]?.state.description)

            player.terminate()
            _ = try harness.waitForSnapshot("the stream is gone") { $0.nodes[node.id] == nil }
            #expect(harness.events.contains(.removed(.node(harness.events.lastValue(ofNode: node.id)!))))
        }

        /// PipeWire 1.x writes the driver a node follows into its properties (`node.driver-id`)
        /// and rewrites it whenever the node is linked or unlinked: a hold and its release. The
        /// mirror leaves it out, so a stream's properties change only when its app changes them.
        @Test func aStreamsPropertiesStayTheSameWhenItIsUnlinkedAndLinkedAgain() throws {
            let harness = try GraphHarness()
            let (_, stream, speaker) = try harness.playLinkedStream()
            let linked = try harness.waitForSnapshot("linked and running") {
                $0.links(from: stream.id, to: speaker.id).count == 2 && $0.nodes[stream.id]?.state == .running
            }
            let properties = try #require(linked.nodes[stream.id]).properties
            harness.graph.unlinkAll(between: stream.id, and: speaker.id)
            _ = try harness.waitForSnapshot("unlinked") { $0.links(from: stream.id, to: speaker.id).isEmpty }
            harness.graph.link(output: stream.id, input: speaker.id)
            _ = try harness.waitForSnapshot("linked and running again") {
                $0.links(from: stream.id, to: speaker.id).count == 2 && $0.nodes[stream.id]?.state == .running
            }
            #expect(harness.graph.snapshot.nodes[stream.id]?.properties == properties)
            let withDriver = harness.events.all.filter {
                if case .changed(.node(let node)) = $0 { node.id == stream.id && node.properties["node.driver-id"] != nil } else { false }
            }
            #expect(withDriver.isEmpty)
        }

        @Test func seesPropsChangedByAnotherClient() throws {
            let harness = try GraphHarness()
            let speaker = try harness.nodeWithProps()
            try harness.sandbox.run("pw-cli", ["set-param", String(speaker.id), "Props", "{ channelVolumes: [0.25, 0.5] }"])
            _ = try harness.waitForSnapshot("channelVolumes [0.25, 0.5]") {
                $0.nodes[speaker.id]?.props?.channelVolumes == [0.25, 0.5]
            }
            try harness.sandbox.run("pw-cli", ["set-param", String(speaker.id), "Props", "{ mute: true }"])
            _ = try harness.waitForSnapshot("mute") { $0.nodes[speaker.id]?.props?.mute == true }
            #expect(harness.events.count { if case .changed(.node(let n)) = $0 { n.id == speaker.id } else { false } } >= 2)
        }

        @Test func seesMetadataWrittenByAnotherClient() throws {
            let harness = try GraphHarness()
            _ = try harness.waitForSnapshot("settings metadata") { $0.metadata["settings"] != nil }
            try harness.sandbox.run("pw-metadata", ["-n", "settings", "0", "clock.force-quantum", "256"])
            let snapshot = try harness.waitForSnapshot("clock.force-quantum = 256") {
                $0.metadata["settings"]?.value(for: "clock.force-quantum") == "256"
            }
            #expect(snapshot.metadata["settings"]?.entry(for: "clock.force-quantum")?.subject == 0)
            #expect(
                harness.events.contains(
                    .metadataChanged(name: "settings", subject: 0, key: "clock.force-quantum", value: "256")))
            try harness.sandbox.run("pw-metadata", ["-n", "settings", "-d", "0", "clock.force-quantum"])
            _ = try harness.waitForSnapshot("clock.force-quantum removed") {
                $0.metadata["settings"]?.value(for: "clock.force-quantum") == nil
            }
        }

        /// Pitfall 2: a client-exported device pushes nothing to subscribers; the mirror must
        /// re-enumerate EnumRoute / Route when the info's param SERIAL bits flip.
        @Test func seesDeviceRoutesAndTheirAvailabilityChanges() throws {
            let harness = try GraphHarness()
            let device = try harness.sandbox.startRouteDevice(name: "test-card", description: "Test Card")
            var snapshot = try harness.waitForSnapshot("the device with four routes and two active ones") {
                $0.devices[device.globalID].map { $0.enumRoutes.count == 4 && $0.activeRoutes.count == 2 } ?? false
            }
            var mirrored = try #require(snapshot.devices[device.globalID])
            #expect(mirrored.name == "test-card" && mirrored.displayName == "Test Card")
            #expect(mirrored.enumRoutes.map(\.name) == [
                "analog-output-speaker", "analog-output-headphones", "analog-input-internal-mic", "analog-input-headset-mic",
            ])
            #expect(mirrored.enumRoutes.map(\.available) == [.yes, .no, .yes, .no])
            #expect(mirrored.enumRoutes.map(\.direction) == [.output, .output, .input, .input])
            #expect(mirrored.enumRoutes.allSatisfy { $0.device == nil })
            #expect(mirrored.activeRoutes.first?.name == "analog-output-speaker")
            #expect(mirrored.activeRoutes.first?.device == 0)
            #expect(mirrored.activeRoutes.last?.name == "analog-input-internal-mic")
            #expect(mirrored.activeRoutes.last?.device == 1)
            #expect(mirrored.activeRoutes.first?.props?.volume == 1)

            try device.plugHeadphones()
            snapshot = try harness.waitForSnapshot("headphones available and active") {
                $0.devices[device.globalID]?.enumRoutes.last?.available == .yes
                    && $0.devices[device.globalID]?.activeRoutes.first?.name == "analog-output-headphones"
            }
            mirrored = try #require(snapshot.devices[device.globalID])
            #expect(mirrored.activeRoutes.first?.props?.volume == 0.5)
            #expect(mirrored.activeRoutes.last?.name == "analog-input-headset-mic", "a headset's microphone comes with it")

            try device.unplugHeadphones()
            _ = try harness.waitForSnapshot("headphones unavailable again") {
                $0.devices[device.globalID]?.enumRoutes.last?.available == .no
                    && $0.devices[device.globalID]?.activeRoutes.first?.name == "analog-output-speaker"
            }
            // Each flip produced changed(device) events carrying the new routes.
            let changes = harness.events.count {
                if case .changed(.device(let d)) = $0 { d.id == device.globalID } else { false }
            }
            #expect(changes >= 4)
        }

        /// Beside another session manager (the daemon's `--no-linking` mode) the mirror shows
        /// what that manager did: its `default` metadata, the ports it configured, its links.
        @Test func mirrorsWhatWirePlumberDoes() throws {
            let harness = try GraphHarness()
            let wireplumber = try harness.sandbox.startWirePlumber()
            do {
                _ = try harness.waitForSnapshot("WirePlumber's default sink") { $0.defaultAudioSinkName != nil }
            } catch {
                // What WirePlumber said, and what the mirror had: a rare flake here needs both.
                let snapshot = harness.graph.snapshot
                let said = String(wireplumber.errorOutput.suffix(3000))
                let metadata = snapshot.metadata["default"].map { "\($0)" } ?? "none"
                Issue.record("no default sink: WirePlumber said:\n\(said)\ndefault metadata: \(metadata); sinks: \(snapshot.sinks.map(\.name))")
                throw error
            }
            let (_, stream) = try harness.playStream(role: "Music")
            let snapshot = try harness.waitForSnapshot("WirePlumber links the stream") { s in
                s.links(of: stream.id).count == 2 && s.nodes[stream.id]?.state == .running
            }
            let target = try #require(snapshot.links(of: stream.id).first?.inputNode)
            #expect(snapshot.nodes[target]?.isSink == true)
            #expect(snapshot.defaultAudioSink.map { $0.isSink } == true)
            let dumped = try harness.sandbox.dump().nodeLinks.filter { $0.output == stream.id }
            #expect(dumped.count == 2 && dumped.allSatisfy { $0.input == target })
        }

        @Test func seesDevicesPluggedAndUnpluggedAtRunTime() throws {
            let harness = try GraphHarness()
            try harness.sandbox.createNullSink(named: "usb-dac", description: "USB DAC")
            let snapshot = try harness.waitForSnapshot("usb-dac with two input ports") { s in
                s.node(named: "usb-dac").map { s.ports(of: $0.id, direction: .input).count == 2 } ?? false
            }
            let dac = try #require(snapshot.node(named: "usb-dac"))
            // (PipeWire 1.4.2 replaces a new sink's first ports when they are configured: count
            // the removals that unplugging makes.)
            func portsRemoved() -> Int {
                harness.events.count { if case .removed(.port(let p)) = $0 { p.nodeID == dac.id } else { false } }
            }
            let before = portsRemoved()
            try harness.sandbox.destroyNode(named: "usb-dac")
            _ = try harness.waitForSnapshot("usb-dac and its ports are gone") { s in
                s.nodes[dac.id] == nil && s.ports.values.allSatisfy { $0.nodeID != dac.id }
            }
            #expect(portsRemoved() - before == 4)
        }
    }
}

extension EventRecorder {
    /// The last value of node `id` that any event carried.
    func lastValue(ofNode id: GlobalID) -> Node? {
        all.reversed().lazy.compactMap { event -> Node? in
            switch event {
            case .added(.node(let node)), .changed(.node(let node)), .removed(.node(let node)):
                node.id == id ? node : nil
            default: nil
            }
        }.first
    }
}
