import SessionPolicy

/// The server-neutral half of port classification: a sink's or source's properties (a PipeWire
/// node's merged with its device's, or a PulseAudio sink's proplist) and route name as an
/// AVAudioSession port type (reference §6), and a card's route as a data source. Each backend
/// reads its server's objects into these (`PortClassification`, `PulsePorts`).
///
/// The type comes from, in order: the Bluetooth profile, RAOP, the ALSA route name
/// (`analog-output-headphones`, `hdmi-output-0`, ...), the node name, `device.bus`,
/// `device.form-factor`, then virtual nodes (null sinks, loopbacks, network sinks), else line.
enum PortTyping {
    /// One port of a node and whether it can be used now.
    struct Offer: Equatable {
        var port: SessionPolicy.Port
        var available: Bool
        /// The channel count is the node's declared format (`audio.channels` / `audio.position`),
        /// not a guess from its volumes that the node's Props may still correct.
        var channelsDeclared = true
    }

    /// Rules that name a port's type (`audiosession.port-rules`), consulted before our own typing.
    typealias TypeRule = @Sendable ([String: String]) -> PortType?

    /// A card's route as a data source: its orientation where its name says (a front or rear
    /// jack); no card says upper or lower.
    static func dataSource(index: Int, name: String, description: String) -> DataSource {
        let lowered = name.lowercased()
        let orientation: DataSource.Orientation? =
            lowered.contains("front") ? .front : lowered.contains("rear") || lowered.contains("back") ? .back : nil
        return DataSource(id: UInt32(index), name: description.isEmpty ? name : description, orientation: orientation)
    }

    /// The port type from merged device and node properties and, for a device route, its name
    /// and description.
    static func type(
        of properties: [String: String], route: String?, routeDescription: String = "", direction: PortDirection
    ) -> PortType {
        let output = direction == .output
        let name = (properties["node.name"] ?? "").lowercased()
        if properties["device.api"] == "bluez5" || properties["api.bluez5.profile"] != nil {
            let profile = (properties["api.bluez5.profile"] ?? properties["device.profile.name"] ?? "").lowercased()
            if profile.hasPrefix("a2dp") { return .bluetoothA2DP }
            if profile.hasPrefix("bap") { return .bluetoothLE }
            return .bluetoothHFP
        }
        if properties["device.api"] == "raop" || name.hasPrefix("raop") { return .airPlay }
        if let route, let type = type(ofRouteNamed: route, description: routeDescription, output: output) { return type }
        if name.contains("hdmi") { return .HDMI }
        if name.contains("displayport") { return .displayPort }
        switch properties["device.bus"] {
        case "usb": return .usbAudio
        case "firewire": return .fireWire
        case "thunderbolt": return .thunderbolt
        default: break
        }
        switch properties["device.form-factor"] {
        case "headphone": return output ? .headphones : .headsetMic
        case "headset": return output ? .headphones : .headsetMic
        case "hands-free": return .bluetoothHFP
        case "car": return .carAudio
        case "hdmi", "tv": return .HDMI
        case "internal", "speaker", "microphone", "computer": return output ? .builtInSpeaker : .builtInMic
        case "webcam": return .usbAudio
        default: break
        }
        if isVirtual(properties, name: name) { return .virtual }
        return output ? .lineOut : .lineIn
    }

    /// ALSA card route names: ACP's (`analog-output-speaker`, `analog-input-headset-mic`,
    /// `hdmi-output-1`, `iec958-stereo-output`, ...) and UCM's, which laptops with a DSP have
    /// (`[Out] Speaker`, `[Out] HDMI1`, `[In] Headset`; the numbered microphones `[In] Mic1`
    /// and `[In] Mic2` are told apart by their descriptions: "Digital Microphone", "Headphones
    /// Stereo Microphone").
    static func type(ofRouteNamed name: String, description: String = "", output: Bool) -> PortType? {
        var route = name.lowercased()
        for prefix in ["[out] ", "[in] "] where route.hasPrefix(prefix) { route.removeFirst(prefix.count) }
        if !output, route.hasPrefix("mic"), route.dropFirst(3).allSatisfy(\.isNumber) {
            let described = description.lowercased()
            if described.contains("digital") || described.contains("internal") || described.contains("built-in") { return .builtInMic }
            if described.contains("headphone") || described.contains("headset") { return .headsetMic }
        }
        if route.hasPrefix("hdmi") { return .HDMI }
        if route.contains("displayport") || route.hasPrefix("dp-") { return .displayPort }
        if route.contains("headphone-mic") || route.contains("headset-mic") { return .headsetMic }
        if route.contains("headphone") || route.contains("headset") { return output ? .headphones : .headsetMic }
        if route.contains("speaker") { return .builtInSpeaker }
        if route.contains("earpiece") || route.contains("handset") { return output ? .builtInReceiver : .builtInMic }
        if route.contains("internal-mic") { return .builtInMic }
        if route.contains("mic") { return .headsetMic }
        if route.contains("line") || route.contains("iec958") || route.contains("spdif") { return output ? .lineOut : .lineIn }
        return nil
    }

    /// Null sinks, loopbacks and network sinks carry no hardware.
    static func isVirtual(_ properties: [String: String], name: String) -> Bool {
        if properties["factory.name"] == "support.null-audio-sink" || properties["node.virtual"] == "true"
            || properties["media.class"] == "Audio/Source/Virtual"
        {
            return true
        }
        let networkPrefixes = ["tunnel", "rtp", "roc", "snapcast", "pulse-tunnel", "zeroconf"]
        return name.contains("loopback") || networkPrefixes.contains { name.hasPrefix($0) }
            || ["network", "tunnel"].contains(properties["device.api"] ?? "")
    }
}
