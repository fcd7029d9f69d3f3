/// Chooses a session's route from the ports that exist: pure, so the daemon, the CLI and
/// tests get the same answer.
///
/// Rules (reference §1, §3, §6): last in wins (a newly plugged port, or the port the user
/// just made default, is preferred); multiRoute takes every eligible output; defaultToSpeaker
/// picks the speaker over the receiver; an output override (speaker) wins until the next
/// route change; a preferred input wins while it exists; Bluetooth HFP needs `allowBluetooth`
/// in playAndRecord, A2DP needs an output-only category or `allowBluetoothA2DP`, and on one
/// device HFP beats A2DP for a call while A2DP beats HFP for anything else. An output-only
/// category may play on HFP: a headset that someone else switched to HFP (a call app,
/// WirePlumber's autoswitch) is still the headset its user put on, not a reason to play on
/// the speakers.
public struct RouteSelector: Sendable {
    /// Available ports, most recently "in" first.
    public var ports: [Port]

    public init(portsMostRecentFirst: [Port]) { self.ports = portsMostRecentFirst }

    /// What one session asks of the route.
    public struct Request: Hashable, Sendable {
        public var configuration: SessionConfiguration
        public var preferredInputUID: String?
        public var outputOverride: OutputOverride
        public init(configuration: SessionConfiguration, preferredInputUID: String? = nil, outputOverride: OutputOverride = .none) {
            self.configuration = configuration
            self.preferredInputUID = preferredInputUID
            self.outputOverride = outputOverride
        }
    }

    public func route(for request: Request) -> RouteDescription {
        RouteDescription(inputs: inputs(for: request), outputs: outputs(for: request))
    }

    /// Inputs the session may choose from (`availableInputs`): empty for output-only categories.
    public func availableInputs(for configuration: SessionConfiguration) -> [Port] {
        guard configuration.category.hasInput else { return [] }
        return ports.filter { $0.direction == .input && Self.isEligibleInput($0, configuration) }
    }

    func inputs(for request: Request) -> [Port] {
        let candidates = availableInputs(for: request.configuration)
        if let preferred = request.preferredInputUID, let port = candidates.first(where: { $0.uid == preferred }) {
            return [port]
        }
        return candidates.first.map { [$0] } ?? []
    }

    func outputs(for request: Request) -> [Port] {
        let configuration = request.configuration
        guard configuration.category.hasOutput else { return [] }
        let eligible = ports.filter { $0.direction == .output && Self.isEligibleOutput($0, configuration) }
        if configuration.category == .multiRoute {
            let external = eligible.filter { $0.type.isMultiRouteEligible && $0.type != .builtInSpeaker }
            if !external.isEmpty { return external }
            return eligible.first(where: { $0.type == .builtInSpeaker }).map { [$0] } ?? []
        }
        if request.outputOverride == .speaker, configuration.category == .playAndRecord,
           let speaker = eligible.first(where: { $0.type == .builtInSpeaker }) {
            return [speaker]
        }
        guard var chosen = eligible.first else { return [] }
        let wantsReceiver = configuration.category == .playAndRecord
            && !configuration.effectiveOptions.contains(.defaultToSpeaker)
        if chosen.type == .builtInSpeaker, wantsReceiver,
           let receiver = eligible.first(where: { $0.type == .builtInReceiver }) {
            chosen = receiver
        } else if chosen.type == .builtInReceiver, !wantsReceiver,
                  let speaker = eligible.first(where: { $0.type == .builtInSpeaker }) {
            chosen = speaker
        }
        let call = configuration.category == .playAndRecord
        let better: PortType? = chosen.type == .bluetoothA2DP && call ? .bluetoothHFP : chosen.type == .bluetoothHFP && !call ? .bluetoothA2DP : nil
        if let better, let device = chosen.deviceID,
           let port = eligible.first(where: { $0.type == better && $0.deviceID == device }) {
            chosen = port
        }
        return [chosen]
    }

    static func isEligibleOutput(_ port: Port, _ configuration: SessionConfiguration) -> Bool {
        let options = configuration.effectiveOptions
        switch port.type {
        case .builtInReceiver:
            return configuration.category == .playAndRecord
        case .bluetoothHFP:
            return configuration.category != .playAndRecord || options.contains(.allowBluetooth)
        case .bluetoothA2DP:
            return configuration.category != .playAndRecord || options.contains(.allowBluetoothA2DP)
        default:
            return true
        }
    }

    static func isEligibleInput(_ port: Port, _ configuration: SessionConfiguration) -> Bool {
        port.type != .bluetoothHFP || configuration.effectiveOptions.contains(.allowBluetooth)
    }
}
