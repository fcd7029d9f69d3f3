import PipeWireSandbox

extension PrivatePipeWire {
    /// The device nodes a stream's ports are linked to, from `pw-link` (an independent oracle).
    func linkedDevices(of nodeName: String) throws -> Set<String> {
        var devices = Set<String>()
        for entry in try portLinks() {
            let output = entry.outputPort.split(separator: ":").first.map(String.init)
            let input = entry.inputPort.split(separator: ":").first.map(String.init)
            if output == nodeName, let input { devices.insert(input) }
            if input == nodeName, let output { devices.insert(output) }
        }
        return devices
    }

    /// Waits until `nodeName` is linked to exactly `devices` (empty: held, unlinked).
    func waitUntilLinked(_ nodeName: String, to devices: Set<String>, timeout: Duration = .seconds(10)) throws {
        try waitUntil(timeout: timeout, "\(nodeName) is linked to \(devices.sorted()) (now: \((try? linkedDevices(of: nodeName))?.sorted() ?? []))") {
            try linkedDevices(of: nodeName) == devices
        }
    }
}
