import Foundation
import PipeWireGraph
import PipeWireSandbox
import Testing

extension PipeWireIntegration {
    /// The profiler, bound only while a sample is wanted: what a running driver's clock runs at.
    @Suite struct ClockSampling {
        /// A stream asking for 128 frames, linked to the speaker: the speaker drives it at 128
        /// frames, 48 kHz. Once sampling stops, no profile comes any more (the server sends one
        /// each cycle on 1.4, once a second on 0.3.65: 1.5 s of silence means it was unbound).
        @Test func aSampleNamesTheDriverItsFollowersAndTheQuantumAndStopsWhenAsked() async throws {
            let harness = try GraphHarness()
            #expect(harness.graph.snapshot.profiler != nil, "the sandbox's PipeWire loads libpipewire-module-profiler")
            let tone = try harness.sandbox.testTone()
            let player = try harness.sandbox.play(role: "Music", file: tone, extraArguments: ["--latency", "128"])
            defer { player.terminate() }
            let pid = player.pid
            let found = try harness.waitForSnapshot("the stream appears") { s in s.streams.contains { s.client(of: $0)?.pid == pid } }
            let stream = try #require(found.streams.first { found.client(of: $0)?.pid == pid })
            let speaker = try #require(found.node(named: "speaker"))
            harness.graph.configurePorts(node: stream.id)
            _ = try harness.waitForSnapshot("stream ports") { $0.ports(of: stream.id, direction: .output).count == 2 }
            harness.graph.link(output: stream.id, input: speaker.id)
            _ = try harness.waitForSnapshot("the stream runs") { $0.nodes[stream.id]?.state == .running }

            func sampled() -> [DriverCycle] {
                harness.events.all.flatMap { event -> [DriverCycle] in
                    if case .clocksSampled(let cycles) = event { return cycles }
                    return []
                }
            }
            #expect(sampled().isEmpty, "nothing is sampled unless asked")
            harness.graph.sampleClocks()
            var cycle: DriverCycle?
            try waitUntil(timeout: .seconds(5), "a fresh cycle of the speaker that drives the stream (so far \(sampled()))") {
                cycle = sampled().last { $0.driver == speaker.id && $0.isFresh }
                return cycle != nil
            }
            #expect(cycle?.driverName == "speaker")
            #expect(cycle?.clocks(stream.id) == true, "the stream is among the speaker's followers: \(String(describing: cycle))")
            #expect(cycle?.sampleRate == 48_000 && cycle?.quantum == 128, "\(String(describing: cycle))")

            harness.graph.stopSamplingClocks()
            await harness.graph.roundTrip()
            let before = sampled().count
            try await Task.sleep(for: .milliseconds(1500))
            #expect(sampled().count == before, "no profile after sampling stopped")
        }
    }
}
