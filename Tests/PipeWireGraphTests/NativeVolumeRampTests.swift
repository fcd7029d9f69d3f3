import PipeWireGraph
import Testing

/// Pure tests of the native-ramp capability and its parameters: no PipeWire needed.
@Suite struct NativeVolumeRampTests {
    @Test func versionsParseWithOrWithoutADebianSuffixAndCompareNumerically() {
        #expect(PipeWireVersion("0.3.65") == PipeWireVersion(0, 3, 65))
        #expect(PipeWireVersion("1.4.2-1~bpo12+1") == PipeWireVersion(1, 4, 2))
        #expect(PipeWireVersion("0.3") == nil)
        #expect(PipeWireVersion("") == nil)
        #expect(PipeWireVersion("x.y.z") == nil)
        #expect(PipeWireVersion(0, 3, 9) < PipeWireVersion(0, 3, 68))
        #expect(PipeWireVersion(0, 3, 68) < PipeWireVersion(1, 0, 0))
        #expect(PipeWireVersion(1, 4, 2).description == "1.4.2")
    }

    @Test func theRampIsSentInWholeMillisecondsAndStepsInSamples() {
        let ramp = NativeVolumeRamp(duration: .milliseconds(250), step: .milliseconds(10), sampleRate: 48_000)
        #expect(ramp.milliseconds == 250)
        #expect(ramp.stepSamples == 480)
        #expect(ramp.scale == .linear)
        #expect(NativeVolumeRamp(duration: .microseconds(300), stepSamples: 0).milliseconds == 1, "never zero: zero means no ramp")
        #expect(NativeVolumeRamp(duration: .microseconds(300), stepSamples: 0).stepSamples == 1, "never zero: 1.4 loops forever")
        #expect(NativeVolumeRamp(duration: .milliseconds(500), step: .milliseconds(10), sampleRate: 44_100).stepSamples == 441)
    }

    private func snapshot(server: String?, client: [String: String]?) -> GraphSnapshot {
        var snapshot = GraphSnapshot(serverVersion: server.flatMap(PipeWireVersion.init))
        snapshot.nodes[30] = Node(id: 30, name: "music", mediaClass: "Stream/Output/Audio", clientID: client == nil ? nil : 20)
        if let client { snapshot.clients[20] = Client(id: 20, properties: client) }
        return snapshot
    }

    @Test func bothTheServerAndTheStreamsOwnLibraryMustKnowTheRampKeys() {
        #expect(snapshot(server: "1.4.2", client: ["core.version": "1.4.2"]).rampsVolumeNatively(30))
        #expect(snapshot(server: "0.3.68", client: ["core.version": "0.3.68"]).rampsVolumeNatively(30))
        // A pw_stream's converter runs in its client: a 0.3.65 pw-cat on a 1.4.2 server jumps.
        #expect(!snapshot(server: "1.4.2", client: ["core.version": "0.3.65"]).rampsVolumeNatively(30))
        #expect(!snapshot(server: "1.4.2", client: [:]).rampsVolumeNatively(30), "an unknown library is taken as too old")
        #expect(!snapshot(server: "0.3.65", client: ["core.version": "1.4.2"]).rampsVolumeNatively(30))
        #expect(!snapshot(server: "0.3.67", client: ["core.version": "0.3.67"]).rampsVolumeNatively(30))
        #expect(!snapshot(server: nil, client: ["core.version": "1.4.2"]).rampsVolumeNatively(30), "no core info yet")
        // A server-side node (no owning client) has the server's converter.
        #expect(snapshot(server: "1.4.2", client: nil).rampsVolumeNatively(30))
        #expect(!snapshot(server: "1.4.2", client: nil).rampsVolumeNatively(31), "no such node")
    }
}
