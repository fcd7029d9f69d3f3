import PipeWireGraph
import SessionPolicy

/// Describes a sink or source node as an AVAudioSession port: its type from the node's and
/// its device's properties (`device.form-factor`, `device.bus`, `api.bluez5.profile`, ALSA
/// names). A first cut; route-level typing (headphone jack routes) refines it.
enum PortClassification {
    static func port(for node: Node, in snapshot: GraphSnapshot) -> SessionPolicy.Port? {
        guard let direction = GraphEndpoints.endpointDirection(of: node) else { return nil }
        let device = node.deviceID.flatMap { snapshot.devices[$0] }
        let properties = (device?.properties ?? [:]).merging(node.properties) { _, nodeValue in nodeValue }
        let portDirection: PortDirection = direction == .playback ? .output : .input
        let channels = Int(properties["audio.channels"] ?? "") ?? max(1, node.props?.channelVolumes.count ?? 2)
        return SessionPolicy.Port(
            uid: node.name, nodeID: node.id, name: node.displayName,
            type: type(of: properties, direction: portDirection), direction: portDirection,
            channels: channels, deviceID: device.map { $0.name })
    }

    static func type(of properties: [String: String], direction: PortDirection) -> PortType {
        let output = direction == .output
        let name = (properties["node.name"] ?? "").lowercased()
        if properties["factory.name"] == "support.null-audio-sink" || properties["node.virtual"] == "true"
            || properties["media.class"] == "Audio/Source/Virtual"
        {
            return .virtual
        }
        if let profile = properties["api.bluez5.profile"] {
            if profile.hasPrefix("a2dp") { return .bluetoothA2DP }
            if profile.hasPrefix("bap") { return .bluetoothLE }
            return .bluetoothHFP
        }
        if properties["device.api"] == "raop" || name.hasPrefix("raop") { return .airPlay }
        if name.contains("hdmi") { return .HDMI }
        if name.contains("displayport") || name.contains("-dp-") { return .displayPort }
        if properties["device.bus"] == "usb" { return .usbAudio }
        if properties["device.bus"] == "firewire" { return .fireWire }
        switch properties["device.form-factor"] {
        case "headphone": return .headphones
        case "headset": return output ? .headphones : .headsetMic
        case "hands-free": return .bluetoothHFP
        case "car": return .carAudio
        case "hdmi", "tv": return .HDMI
        case "internal", "speaker", "microphone", "webcam", "computer": return output ? .builtInSpeaker : .builtInMic
        default: break
        }
        return output ? .lineOut : .lineIn
    }
}
