import PipeWireGraph
import Testing

/// Pure tests of which ports get linked: no PipeWire needed.
@Suite struct PortPairingTests {
    private func ports(_ node: GlobalID, _ direction: Direction, _ channels: [String?], firstID: GlobalID) -> [Port] {
        channels.enumerated().map { index, channel in
            Port(
                id: firstID + GlobalID(index), nodeID: node, direction: direction, channel: channel,
                properties: ["port.id": String(index)])
        }
    }

    private func pairs(_ outputs: [Port], _ inputs: [Port]) -> [[GlobalID]] {
        PortPairing.pairs(outputs: outputs, inputs: inputs).map { [$0.outputPort, $0.inputPort] }
    }

    @Test func stereoMatchesByPosition() {
        let outputs = ports(1, .output, ["FR", "FL"], firstID: 10)
        let inputs = ports(2, .input, ["FL", "FR"], firstID: 20)
        #expect(pairs(outputs, inputs) == [[10, 21], [11, 20]])
    }

    @Test func monoOutputFeedsEveryChannel() {
        let outputs = ports(1, .output, ["MONO"], firstID: 10)
        let inputs = ports(2, .input, ["FL", "FR"], firstID: 20)
        #expect(pairs(outputs, inputs) == [[10, 20], [10, 21]])
    }

    @Test func everyChannelFeedsAMonoInput() {
        let outputs = ports(1, .output, ["FL", "FR"], firstID: 10)
        let inputs = ports(2, .input, ["MONO"], firstID: 20)
        #expect(pairs(outputs, inputs) == [[10, 20], [11, 20]])
    }

    @Test func unmatchedPositionsPairInOrder() {
        let outputs = ports(1, .output, ["AUX0", "AUX1"], firstID: 10)
        let inputs = ports(2, .input, ["FL", "FR"], firstID: 20)
        #expect(pairs(outputs, inputs) == [[10, 20], [11, 21]])
    }

    @Test func surroundToStereoLinksOnlyMatchingChannels() {
        let outputs = ports(1, .output, ["FL", "FR", "FC", "LFE"], firstID: 10)
        let inputs = ports(2, .input, ["FL", "FR"], firstID: 20)
        #expect(pairs(outputs, inputs) == [[10, 20], [11, 21]])
    }

    @Test func noPortsNoPairs() {
        #expect(pairs([], ports(2, .input, ["FL"], firstID: 20)).isEmpty)
        #expect(pairs(ports(1, .output, ["FL"], firstID: 10), []).isEmpty)
    }

    @Test func sinkAsOutputUsesItsMonitorPorts() {
        var snapshot = GraphSnapshot()
        snapshot.nodes[1] = Node(id: 1, name: "speaker", mediaClass: "Audio/Sink")
        snapshot.nodes[2] = Node(id: 2, name: "recorder", mediaClass: "Stream/Input/Audio")
        for port in ports(1, .input, ["FL", "FR"], firstID: 10) { snapshot.insert(port) }
        for var port in ports(1, .output, ["FL", "FR"], firstID: 12) {
            port.isMonitor = true
            snapshot.insert(port)
        }
        for port in ports(2, .input, ["FL", "FR"], firstID: 20) { snapshot.insert(port) }
        let result = PortPairing.pairs(in: snapshot, output: 1, input: 2).map { [$0.outputPort, $0.inputPort] }
        #expect(result == [[12, 20], [13, 21]])
    }

    @Test func defaultSinkNameIsReadFromJSON() {
        var snapshot = GraphSnapshot()
        snapshot.metadata["default"] = Metadata(
            id: 5, name: "default",
            entries: [MetadataEntry(subject: 0, key: "default.audio.sink", type: "Spa:String:JSON", value: #"{"name":"speaker"}"#)])
        #expect(snapshot.defaultAudioSinkName == "speaker")
        #expect(snapshot.defaultAudioSourceName == nil)
    }
}
