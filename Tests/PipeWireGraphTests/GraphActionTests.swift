import Foundation
import PipeWireGraph
import PipeWireSandbox
import Synchronization
import Testing

extension PipeWireIntegration {
    /// Every action is checked through an oracle that does not use PipeWireGraph
    /// (`pw-link -l`, `pw-dump`).
    @Suite struct Actions {
        /// Without a session manager a stream has no ports (pitfall 6): configurePorts gives it some.
        @Test func configurePortsGivesAStreamDSPPorts() throws {
            let harness = try GraphHarness()
            let (_, stream) = try harness.playStream(role: "Music")
            #expect(harness.graph.snapshot.ports(of: stream.id).isEmpty)
            harness.graph.configurePorts(node: stream.id)
            let snapshot = try harness.waitForSnapshot("the stream has FL and FR output ports") {
                $0.ports(of: stream.id, direction: .output).compactMap(\.channel) == ["FL", "FR"]
            }
            let dumped = try harness.sandbox.dump().ports(ofNode: stream.id).compactMap { $0.property("audio.channel") }
            #expect(Set(dumped) == ["FL", "FR"])
            #expect(snapshot.nodes[stream.id]?.outputPortCount == 2)
        }

        @Test func linkConnectsPortsByChannelAndIsIdempotent() throws {
            let harness = try GraphHarness()
            let (_, stream) = try harness.playStream(role: "Music")
            let speaker = try #require(harness.graph.snapshot.node(named: "speaker"))
            harness.graph.configurePorts(node: stream.id)
            _ = try harness.waitForSnapshot("stream ports") { $0.ports(of: stream.id, direction: .output).count == 2 }
            harness.graph.link(output: stream.id, input: speaker.id)
            harness.graph.link(output: stream.id, input: speaker.id)  // again: must not duplicate
            let snapshot = try harness.waitForSnapshot("two links stream → speaker") {
                $0.links(from: stream.id, to: speaker.id).count == 2
            }
            let listing = try harness.sandbox.portLinks()
            let fromStream = listing.filter { $0.outputPort.hasSuffix("_FL") || $0.outputPort.hasSuffix("_FR") }
                .filter { $0.inputPort.hasPrefix("speaker:") }
            #expect(fromStream.count == 2)
            for entry in fromStream {
                #expect(entry.outputPort.suffix(3) == entry.inputPort.suffix(3), "\(entry)")
            }
            _ = try harness.waitForSnapshot("the stream runs") { $0.nodes[stream.id]?.state == .running }
            #expect(Set(snapshot.links(from: stream.id, to: speaker.id).map(\.id)) == Set(fromStream.map(\.linkID)))
            // A third call after everything exists creates nothing either.
            harness.graph.link(output: stream.id, input: speaker.id)
            #expect(try harness.sandbox.portLinks().filter { $0.inputPort.hasPrefix("speaker:") }.count == 2)
        }

        @Test func captureStreamGetsInputPortsAndAMonoSourceFeedsEveryChannel() throws {
            let harness = try GraphHarness()
            let recorder = try harness.sandbox.spawn(
                "pw-cat", ["-r", "--media-role", "Communication", harness.sandbox.directory.appendingPathComponent("rec.wav").path])
            let pid = recorder.pid
            let found = try harness.waitForSnapshot("the capture stream appears") { s in
                s.streams.contains { s.client(of: $0)?.pid == pid }
            }
            let stream = try #require(found.streams.first { found.client(of: $0)?.pid == pid })
            #expect(stream.isCaptureStream && stream.mediaRole == "Communication")
            let mic = try #require(found.node(named: "mic"))
            harness.graph.configurePorts(node: stream.id)
            _ = try harness.waitForSnapshot("the capture stream has input ports") {
                $0.ports(of: stream.id, direction: .input).count == 2
            }
            harness.graph.link(output: mic.id, input: stream.id)
            _ = try harness.waitForSnapshot("mic feeds both channels") { $0.links(from: mic.id, to: stream.id).count == 2 }
            let listing = try harness.sandbox.portLinks().filter { $0.outputPort.hasPrefix("mic:") }
            #expect(listing.count == 2)
            #expect(Set(listing.map(\.outputPortID)).count == 1, "one MONO port fans out")
        }

        /// What the daemon does: react in the observer (on the loop thread) to each new port by
        /// calling `link` again; the snapshot handed over already contains the port.
        @Test func linkingFromTheObserverOnEveryNewPortIsIdempotent() throws {
            let harness = try GraphHarness()
            let (_, stream) = try harness.playStream(role: "Music")
            let speaker = try #require(harness.graph.snapshot.node(named: "speaker"))
            let graph = harness.graph
            let mismatches = EventRecorder()
            let events = harness.events
            graph.setObserver { event, snapshot in
                events.record(event, snapshot)
                guard case .added(.port(let port)) = event, port.nodeID == stream.id else { return }
                if snapshot.ports[port.id] != port { mismatches.record(event, snapshot) }
                graph.link(output: stream.id, input: speaker.id)
            }
            graph.configurePorts(node: stream.id)
            _ = try harness.waitForSnapshot("two links") { $0.links(from: stream.id, to: speaker.id).count == 2 }
            _ = try harness.waitForSnapshot("stream running") { $0.nodes[stream.id]?.state == .running }
            #expect(mismatches.all.isEmpty)
            #expect(try harness.sandbox.portLinks().filter { $0.inputPort.hasPrefix("speaker:") }.count == 2)
            #expect(graph.snapshot.links(from: stream.id, to: speaker.id).count == 2)
        }

        @Test func aPulseStreamIsConfiguredAndLinkedLikeANativeOne() throws {
            let harness = try GraphHarness()
            let player = try harness.sandbox.paplay(role: "music", file: harness.sandbox.testTone(seconds: 30))
            let pid = String(player.pid)
            let found = try harness.waitForSnapshot("the paplay stream appears") { s in
                s.streams.contains { $0.properties["application.process.id"] == pid }
            }
            let stream = try #require(found.streams.first { $0.properties["application.process.id"] == pid })
            let speaker = try #require(found.node(named: "speaker"))
            harness.graph.configurePorts(node: stream.id)
            _ = try harness.waitForSnapshot("paplay stream ports") { $0.ports(of: stream.id, direction: .output).count == 2 }
            harness.graph.link(output: stream.id, input: speaker.id)
            _ = try harness.waitForSnapshot("paplay stream runs into the speaker") {
                $0.links(from: stream.id, to: speaker.id).count == 2 && $0.nodes[stream.id]?.state == .running
            }
            #expect(try harness.sandbox.portLinks().filter { $0.inputPort.hasPrefix("speaker:") }.count == 2)
        }

        @Test func unlinkAndUnlinkAllRemoveLinks() throws {
            let harness = try GraphHarness()
            let (_, stream) = try harness.playStream(role: "Music")
            let snapshot0 = harness.graph.snapshot
            let speaker = try #require(snapshot0.node(named: "speaker"))
            let headphones = try #require(snapshot0.node(named: "headphones"))
            harness.graph.configurePorts(node: stream.id)
            _ = try harness.waitForSnapshot("stream ports") { $0.ports(of: stream.id, direction: .output).count == 2 }
            harness.graph.link(output: stream.id, input: speaker.id)
            harness.graph.link(output: stream.id, input: headphones.id)
            let linked = try harness.waitForSnapshot("linked to both") {
                $0.links(from: stream.id, to: speaker.id).count == 2 && $0.links(from: stream.id, to: headphones.id).count == 2
            }
            let first = try #require(linked.links(from: stream.id, to: speaker.id).first)
            harness.graph.unlink(first.id)
            _ = try harness.waitForSnapshot("one link removed") { $0.links[first.id] == nil }
            #expect(try harness.sandbox.portLinks().contains { $0.linkID == first.id } == false)
            harness.graph.unlinkAll(between: stream.id, and: headphones.id)
            _ = try harness.waitForSnapshot("no links to headphones") { $0.links(from: stream.id, to: headphones.id).isEmpty }
            let remaining = try harness.sandbox.portLinks()
            #expect(!remaining.contains { $0.inputPort.hasPrefix("headphones:") })
            #expect(remaining.filter { $0.inputPort.hasPrefix("speaker:") }.count == 1)
            // Relinking restores only the missing pair.
            harness.graph.link(output: stream.id, input: speaker.id)
            _ = try harness.waitForSnapshot("relinked") { $0.links(from: stream.id, to: speaker.id).count == 2 }
        }

        @Test func linksBelongToTheGraphConnection() throws {
            let harness = try GraphHarness()
            let (_, stream) = try harness.playStream(role: "Music")
            let speaker = try #require(harness.graph.snapshot.node(named: "speaker"))
            harness.graph.configurePorts(node: stream.id)
            _ = try harness.waitForSnapshot("stream ports") { $0.ports(of: stream.id, direction: .output).count == 2 }
            harness.graph.link(output: stream.id, input: speaker.id)
            _ = try harness.waitForSnapshot("linked") { $0.links(from: stream.id, to: speaker.id).count == 2 }
            harness.graph.stop()
            try waitUntil(timeout: .seconds(5), "our links vanish with our connection") {
                try harness.sandbox.portLinks().filter { $0.inputPort.hasPrefix("speaker:") }.isEmpty
            }
        }

        @Test func setPropsChangesVolumeAndMute() throws {
            let harness = try GraphHarness()
            let speaker = try harness.nodeWithProps()
            harness.graph.setProps(node: speaker.id, volume: 0.5)
            _ = try harness.waitForSnapshot("volume 0.5 mirrored") { $0.nodes[speaker.id]?.props?.volume == 0.5 }
            var dumped = try #require(try harness.sandbox.dump().nodes.first { $0.id == speaker.id })
            #expect(dumped.volume == 0.5)
            #expect(dumped.channelVolumes == [1, 1], "the user's channel volumes are untouched")
            harness.graph.setProps(node: speaker.id, mute: true, channelVolumes: [0.25, 0.75])
            _ = try harness.waitForSnapshot("mute and channel volumes mirrored") {
                $0.nodes[speaker.id]?.props?.mute == true && $0.nodes[speaker.id]?.props?.channelVolumes == [0.25, 0.75]
            }
            dumped = try #require(try harness.sandbox.dump().nodes.first { $0.id == speaker.id })
            #expect(dumped.mute == true)
            #expect(dumped.volume == 0.5)
            #expect(dumped.channelVolumes == [0.25, 0.75])
        }

        /// Ducking sets a stream's own volume factor: the change must be applied and mirrored
        /// for client nodes (pw-cat's stream lives in the client) as it is for the daemon's nodes.
        @Test func setPropsOnAStreamIsAppliedAndMirrored() throws {
            let harness = try GraphHarness()
            let stream = try harness.streamWithProps()
            harness.graph.setProps(node: stream.id, volume: 0.2)
            _ = try harness.waitForSnapshot("stream volume 0.2 mirrored") { $0.nodes[stream.id]?.props?.volume == 0.2 }
            try waitUntil(timeout: .seconds(5), "pw-dump shows the stream at 0.2") {
                let volume = try harness.sandbox.dump().nodes.first { $0.id == stream.id }?.volume
                return volume.map { abs($0 - 0.2) < 0.0001 } ?? false
            }
            harness.graph.setProps(node: stream.id, volume: 1)
            _ = try harness.waitForSnapshot("stream volume restored") { $0.nodes[stream.id]?.props?.volume == 1 }
        }

        @Test func setMetadataWritesAKeyAndRemovesIt() async throws {
            let harness = try GraphHarness()
            _ = try harness.waitForSnapshot("settings metadata") { $0.metadata["settings"] != nil }
            harness.graph.setMetadata("settings", subject: 0, key: "clock.force-rate", type: nil, value: "96000")
            await harness.graph.roundTrip()
            try waitUntil(timeout: .seconds(5), "pw-dump shows clock.force-rate 96000") {
                try harness.sandbox.dump().metadataValue("settings", key: "clock.force-rate") == "96000"
            }
            #expect(harness.graph.snapshot.metadata["settings"]?.value(for: "clock.force-rate") == "96000")
            harness.graph.setMetadata("settings", subject: 0, key: "clock.force-rate", type: nil, value: nil)
            try waitUntil(timeout: .seconds(5), "clock.force-rate removed") {
                try harness.sandbox.dump().metadataValue("settings", key: "clock.force-rate") == nil
            }
            _ = try harness.waitForSnapshot("mirror drops the key") {
                $0.metadata["settings"]?.value(for: "clock.force-rate") == nil
            }
        }

        /// Pitfall 1: exporting and binding back on one connection deadlocks; we use two.
        @Test func provideMetadataExportsADefaultMetadataWithoutDeadlock() async throws {
            let harness = try GraphHarness()
            #expect(harness.graph.snapshot.metadata["default"] == nil, "no session manager, no default metadata")
            harness.graph.provideMetadata(named: "default")
            _ = try harness.waitForSnapshot("our default metadata is mirrored") { $0.metadata["default"] != nil }
            harness.graph.setMetadata(
                "default", subject: 0, key: "default.audio.sink", type: "Spa:String:JSON", value: #"{"name":"speaker"}"#)
            _ = try harness.waitForSnapshot("default sink is speaker") { $0.defaultAudioSinkName == "speaker" }
            // The daemon still answers (no deadlock) and other clients see the value.
            await harness.graph.roundTrip()
            try waitUntil(timeout: .seconds(5), "pw-dump sees the default sink") {
                try harness.sandbox.dump().metadataValue("default", key: "default.audio.sink")?.contains("speaker") == true
            }
            // Another client writes into our metadata; we see it.
            try harness.sandbox.run("pw-metadata", ["-n", "default", "0", "default.audio.source", #"{"name":"mic"}"#, "Spa:String:JSON"])
            _ = try harness.waitForSnapshot("default source is mic") { $0.defaultAudioSourceName == "mic" }
            // Withdrawn (another session manager provides it now): it leaves the graph.
            harness.graph.withdrawMetadata(named: "default")
            _ = try harness.waitForSnapshot("our default metadata is gone") { $0.metadata["default"] == nil }
            try waitUntil(timeout: .seconds(5), "pw-dump no longer lists it") {
                try !harness.sandbox.dump().objects.contains { $0.property("metadata.name") == "default" }
            }
        }

        /// Another client provides `default` beside ours (a session manager taking over): ours
        /// goes, and the entries named go into theirs first where it lacks them; what it holds
        /// already and what is not named stay as they are.
        @Test func withdrawingHandsTheNamedEntriesOverToTheOtherProvidersObject() async throws {
            let harness = try GraphHarness()
            harness.graph.provideMetadata(named: "default")
            let ours = try harness.waitForSnapshot("our default metadata is mirrored") { $0.metadata["default"] != nil }.metadata["default"]?.id
            for (key, name) in [("default.configured.audio.sink", "headphones"), ("default.configured.audio.source", "mic"), ("default.audio.sink", "headphones")] {
                try harness.sandbox.run("pw-metadata", ["-n", "default", "0", key, "{\"name\":\"\(name)\"}", "Spa:String:JSON"])
            }
            _ = try harness.waitForSnapshot("our metadata holds the choices") { $0.metadata["default"]?.entries.count == 3 }
            let other = GraphHarness.makeGraph(remote: harness.sandbox.socketPath, logs: LogRecorder())
            other.start()
            defer { other.stop() }
            try waitUntil(timeout: .seconds(5), "the other client is connected") { other.isConnected }
            other.provideMetadata(named: "default")
            let theirs = try harness.waitForSnapshot("the other client's default is mirrored") {
                $0.metadata["default"].map { $0.id != ours } == true
            }.metadata["default"]!.id
            other.setMetadata("default", subject: 0, key: "default.configured.audio.source", type: "Spa:String:JSON", value: #"{"name":"usb-mic"}"#)
            _ = try harness.waitForSnapshot("theirs holds its own source") { $0.metadata["default"]?.value(for: "default.configured.audio.source") != nil }
            harness.graph.withdrawMetadata(named: "default", handingOver: ["default.configured.audio.sink", "default.configured.audio.source"])
            let after = try harness.waitForSnapshot("theirs holds our sink choice") {
                $0.metadata["default"]?.value(for: "default.configured.audio.sink") != nil
            }.metadata["default"]!
            #expect(after.id == theirs)
            #expect(after.value(for: "default.configured.audio.sink")?.contains("headphones") == true)
            #expect(after.value(for: "default.configured.audio.source")?.contains("usb-mic") == true, "theirs was kept")
            #expect(after.value(for: "default.audio.sink") == nil, "not named: not handed over")
            try waitUntil(timeout: .seconds(5), "ours left the graph") {
                try harness.sandbox.metadataProviders(named: "default").count == 1
            }
        }

        /// A metadata we export, withdrawn while the main connection's bind of it waits for our
        /// answer: PipeWire's metadata module would never read the main connection again (it
        /// forgets that wait when the object goes). Withdrawn the moment the main connection
        /// binds it, 20 times over, the connection still answers.
        @Test func withdrawingAMetadataWhileItIsBeingBoundLeavesTheConnectionAnswering() async throws {
            let harness = try GraphHarness()
            let graph = harness.graph
            let withdrawals = Mutex(0)
            graph.setObserver { event, _ in
                // On the loop thread, in the turn that binds it: the bind and the withdrawal
                // leave together.
                guard case .added(.metadata(let metadata)) = event, metadata.name == "default" else { return }
                graph.withdrawMetadata(named: "default")
                withdrawals.withLock { $0 += 1 }
            }
            for round in 1...20 {
                graph.provideMetadata(named: "default")
                try waitUntil(timeout: .seconds(5), "withdrawal \(round) made") { withdrawals.withLock { $0 } == round }
            }
            let answered = Mutex(false)
            Task { await graph.roundTrip(); answered.withLock { $0 = true } }
            try waitUntil(timeout: .seconds(5), "the main connection still answers a round trip") { answered.withLock { $0 } }
            try waitUntil(timeout: .seconds(5), "no default metadata is left") {
                try !harness.sandbox.dump().objects.contains { $0.property("metadata.name") == "default" }
            }
        }

        @Test func sendSuspendSuspendsARunningSink() throws {
            let harness = try GraphHarness()
            let (_, stream) = try harness.playStream(role: "Music")
            let speaker = try #require(harness.graph.snapshot.node(named: "speaker"))
            harness.graph.configurePorts(node: stream.id)
            _ = try harness.waitForSnapshot("stream ports") { $0.ports(of: stream.id, direction: .output).count == 2 }
            harness.graph.link(output: stream.id, input: speaker.id)
            _ = try harness.waitForSnapshot("speaker runs") { $0.nodes[speaker.id]?.state == .running }
            harness.graph.unlinkAll(between: stream.id, and: speaker.id)
            _ = try harness.waitForSnapshot("speaker idles") { $0.nodes[speaker.id]?.state == .idle }
            harness.graph.send(.suspend, to: speaker.id)
            _ = try harness.waitForSnapshot("speaker suspended") { $0.nodes[speaker.id]?.state == .suspended }
            try waitUntil(timeout: .seconds(5), "pw-dump shows the speaker suspended") {
                try harness.sandbox.dump().node(named: "speaker")?.state == "suspended"
            }
        }
    }
}
