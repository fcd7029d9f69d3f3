/// Which output port links to which input port when one node is linked to another.
///
/// Ports are matched by `audio.channel`; a MONO (or unpositioned) side fans out to / in from
/// every port of the other side, like WirePlumber; when no positions match at all (AUX0..n vs
/// FL/FR), ports are paired in order.
public enum PortPairing {
    public struct Pair: Sendable, Equatable, Hashable {
        public var outputPort: GlobalID
        public var inputPort: GlobalID

        public init(outputPort: GlobalID, inputPort: GlobalID) {
            self.outputPort = outputPort
            self.inputPort = inputPort
        }
    }

    /// The pairs for linking node `output` into node `input`. A sink used as output contributes
    /// its monitor ports; anything else its non-monitor output ports, or its monitor ports when
    /// that is all it has (a virtual source's capture ports are flagged as monitors).
    public static func pairs(in snapshot: GraphSnapshot, output: GlobalID, input: GlobalID) -> [Pair] {
        let allOutputs = snapshot.ports(of: output, direction: .output)
        let outputIsSink = snapshot.nodes[output]?.isSink ?? false
        var outputs = allOutputs.filter { !$0.isMonitor }
        if outputIsSink || outputs.isEmpty { outputs = allOutputs.filter(\.isMonitor) }
        let inputs = snapshot.ports(of: input, direction: .input)
        return pairs(outputs: outputs, inputs: inputs)
    }

    /// Pairs ports already chosen for each side.
    public static func pairs(outputs: [Port], inputs: [Port]) -> [Pair] {
        guard !outputs.isEmpty, !inputs.isEmpty else { return [] }
        if outputs.count == 1, isUnpositioned(outputs[0]) {
            return inputs.map { Pair(outputPort: outputs[0].id, inputPort: $0.id) }
        }
        if inputs.count == 1, isUnpositioned(inputs[0]) {
            return outputs.map { Pair(outputPort: $0.id, inputPort: inputs[0].id) }
        }
        var result: [Pair] = []
        var matchedByPosition = false
        for port in outputs {
            if port.channel == "MONO" {
                result += inputs.map { Pair(outputPort: port.id, inputPort: $0.id) }
                matchedByPosition = true
                continue
            }
            for target in inputs where target.channel != nil && target.channel == port.channel {
                result.append(Pair(outputPort: port.id, inputPort: target.id))
                matchedByPosition = true
            }
        }
        if !matchedByPosition {
            result = zip(outputs, inputs).map { Pair(outputPort: $0.id, inputPort: $1.id) }
        }
        return result
    }

    private static func isUnpositioned(_ port: Port) -> Bool {
        port.channel == nil || port.channel == "MONO" || port.channel == "UNK"
    }
}
