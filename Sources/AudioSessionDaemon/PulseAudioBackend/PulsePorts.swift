import PulseAudioServer
import SessionPolicy

/// Describes a PulseAudio sink or source as AVAudioSession ports: one port per port of the
/// device (`uid` = `<sink name>:<port name>`, available while not `available: no`), or one
/// port (`uid` = the sink's name) for a device without ports (a null sink, a network sink).
/// The type comes from the rules, then PulseAudio's port type (since 14.0), then the same
/// name and property heuristics as on PipeWire (the property names are PulseAudio's own).
/// Monitors are not ports.
enum PulsePorts {
    static func offers(for device: PulseDevice, rule: PortTyping.TypeRule?) -> [PortTyping.Offer] {
        guard device.monitorOf == nil else { return [] }
        let direction: PortDirection = device.kind == .sink ? .output : .input
        var properties = device.properties
        properties["node.name"] = properties["node.name"] ?? device.name
        let base = Port(
            uid: device.name, nodeID: device.index, name: device.description.isEmpty ? device.name : device.description,
            type: rule?(properties) ?? deviceType(properties, direction: direction), direction: direction,
            channels: max(1, device.channels), deviceID: device.card.map(cardID))
        guard !device.ports.isEmpty else { return [.init(port: base, available: true)] }
        return device.ports.map { pulsePort in
            var port = base
            port.uid = "\(device.name):\(pulsePort.name)"
            port.name = pulsePort.description.isEmpty ? pulsePort.name : pulsePort.description
            port.priority = Int(pulsePort.priority)
            var routed = properties
            routed["device.route.name"] = pulsePort.name
            port.type = rule?(routed) ?? type(ofPortType: pulsePort.type, direction: direction)
                ?? PortTyping.type(of: properties, route: pulsePort.name, routeDescription: pulsePort.description, direction: direction)
            return .init(port: port, available: pulsePort.availability != .no)
        }
    }

    /// The policy's name for a card (`Port.deviceID`).
    static func cardID(_ index: UInt32) -> String { "card \(index)" }

    /// A device's data sources: its available ports, numbered by their place in its list, and
    /// the active one. Nil for a device without ports.
    static func dataSources(of device: PulseDevice) -> DeviceDataSources? {
        guard device.monitorOf == nil, !device.ports.isEmpty else { return nil }
        let sources = device.ports.enumerated().filter { $0.element.availability != .no }.map { index, port in
            PortTyping.dataSource(index: index, name: port.name, description: port.description)
        }
        let selected = device.activePort.flatMap { active in device.ports.firstIndex { $0.name == active } }.map(UInt32.init)
        return DeviceDataSources(sources: sources, selected: selected)
    }

    /// The port a device plays or records on now (the policy's name for the device).
    static func activeUID(_ device: PulseDevice) -> String {
        device.activePort.map { "\(device.name):\($0)" } ?? device.name
    }

    /// Null sinks (`device.class` abstract) carry no hardware.
    private static func deviceType(_ properties: [String: String], direction: PortDirection) -> PortType {
        properties["device.class"] == "abstract" ? .virtual : PortTyping.type(of: properties, route: nil, direction: direction)
    }

    /// `pa_device_port_type_t`.
    static func type(ofPortType type: UInt32, direction: PortDirection) -> PortType? {
        let output = direction == .output
        switch type {
        case 2: return output ? .builtInSpeaker : nil  // speaker
        case 3, 6: return output ? .headphones : .headsetMic  // headphones, headset
        case 4, 9, 22: return output ? .lineOut : .lineIn  // line, S/PDIF, analog
        case 5: return output ? nil : .builtInMic  // mic
        case 7, 8: return output ? .builtInReceiver : .builtInMic  // handset, earpiece
        case 10, 11: return output ? .HDMI : nil  // HDMI, TV
        case 14: return .usbAudio
        case 15: return output ? .bluetoothA2DP : .bluetoothHFP
        case 17: return .bluetoothHFP  // hands-free
        case 18: return .carAudio
        default: return nil
        }
    }
}
