import Foundation
import PipeWireGraph
import PipeWireSandbox
import Testing

extension PipeWireIntegration {
    /// Level meters on a real PipeWire: a stream that plays a tone and then digital silence,
    /// still running, is heard and then reported silent; the meter leaves its target as it was.
    @Suite struct LevelMeters {
        /// pw-cat playing `seconds` of tone then `silence` seconds of zeros, linked to the speaker.
        func toneThenSilence(_ harness: GraphHarness, tone seconds: Double, silence: Double) throws -> (ManagedProcess, Node) {
            let file = harness.sandbox.directory.appendingPathComponent("tone-then-silence.wav")
            try harness.sandbox.run("sox", ["-n", "-r", "48000", "-c", "2", file.path, "synth", "\(seconds)", "sine", "440", "vol", "0.3", "pad", "0", "\(silence)"])
            let player = try harness.sandbox.play(role: "Notification", file: file)
            let pid = player.pid
            let snapshot = try harness.waitForSnapshot("the pw-cat stream appears") { snapshot in
                snapshot.streams.contains { snapshot.client(of: $0)?.pid == pid }
            }
            let node = snapshot.streams.first { snapshot.client(of: $0)?.pid == pid }!
            let speaker = try #require(snapshot.node(named: "speaker"))
            harness.graph.configurePorts(node: node.id)
            _ = try harness.waitForSnapshot("stream ports") { $0.ports(of: node.id, direction: .output).count == 2 }
            harness.graph.link(output: node.id, input: speaker.id)
            return (player, node)
        }

        func meterNode(of target: GlobalID, in snapshot: GraphSnapshot) -> Node? {
            snapshot.nodes.values.first { $0.properties["audiosession.meter.target"] == String(target) }
        }

        @Test func aToneIsHeardAndItsSilenceReportedWhileTheStreamStillRuns() throws {
            let harness = try GraphHarness()
            let (_, stream) = try toneThenSilence(harness, tone: 1.0, silence: 4.0)
            harness.graph.startMeter(node: stream.id, threshold: 0.001)
            var heard: ContinuousClock.Instant?
            try waitUntil(timeout: .seconds(5), poll: .milliseconds(2), "the meter hears the tone") {
                heard = harness.events.contains(.levelChanged(node: stream.id, audible: true)) ? ContinuousClock.now : nil
                return heard != nil
            }
            var silent: ContinuousClock.Instant?
            try waitUntil(timeout: .seconds(5), poll: .milliseconds(2), "the meter reports the silence after the tone") {
                // The first report may be a silent buffer before the tone reached the meter.
                let levels = harness.events.all.compactMap { event -> Bool? in
                    if case .levelChanged(stream.id, let audible) = event { audible } else { nil }
                }
                let afterTone = levels.drop { !$0 }.dropFirst()
                silent = afterTone.contains(false) ? ContinuousClock.now : nil
                return silent != nil
            }
            let snapshot = harness.graph.snapshot
            #expect(snapshot.nodes[stream.id]?.state == .running, "the stream still runs: only the meter can tell")
            // The tone started before the meter's first buffer, so this bounds the delay from above.
            let reported = silent! - heard!
            print("level meter: silence reported \((reported - .seconds(1)).formatted(.units(allowed: [.milliseconds]))) after the tone's end at most")
            #expect(reported < .milliseconds(1500))
            // The stream plays where it did, at its own volume.
            let speaker = try #require(snapshot.node(named: "speaker"))
            #expect(snapshot.links(from: stream.id, to: speaker.id).count == 2)
            #expect(snapshot.nodes[stream.id]?.props?.volume ?? 1 == 1)
        }

        @Test func stoppingTheMeterOrLosingItsTargetRemovesItsNodeAndLinks() throws {
            let harness = try GraphHarness()
            let (player, stream) = try toneThenSilence(harness, tone: 30, silence: 0)
            harness.graph.startMeter(node: stream.id, threshold: 0.001)
            let metered = try harness.waitForSnapshot("the meter's node is linked to the stream") { snapshot in
                guard let meter = meterNode(of: stream.id, in: snapshot) else { return false }
                return snapshot.links(from: stream.id, to: meter.id).count == 2
            }
            let meter = try #require(meterNode(of: stream.id, in: metered))
            #expect(meter.properties["audiosession.meter"] == "true")
            harness.graph.stopMeter(node: stream.id)
            _ = try harness.waitForSnapshot("the meter is gone") { $0.nodes[meter.id] == nil && $0.links(of: stream.id).count == 2 }

            harness.graph.startMeter(node: stream.id, threshold: 0.001)
            _ = try harness.waitForSnapshot("a new meter") { meterNode(of: stream.id, in: $0) != nil }
            player.terminate()
            _ = try harness.waitForSnapshot("the meter went with its target") { meterNode(of: stream.id, in: $0) == nil }
        }
    }
}
