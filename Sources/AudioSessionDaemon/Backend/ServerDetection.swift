#if canImport(Glibc)
import Glibc
#endif
import PulseAudioServer

/// Which server the daemon attaches to when not told (`--backend auto`): PipeWire when its
/// socket answers (pipewire-pulse is PipeWire, and the native backend does more there), else
/// PulseAudio when its socket answers and libpulse can be loaded, else PipeWire (the daemon
/// waits for it).
enum ServerDetection {
    static func choose(
        _ choice: BackendChoice, options: DaemonOptions, environment: [String: String]
    ) -> (server: AudioServerKind, reason: String) {
        switch choice {
        case .pipewire: return (.pipewire, "--backend pipewire")
        case .pulseaudio: return (.pulseaudio, "--backend pulseaudio")
        case .auto: break
        }
        let pipeWire = pipeWireSocket(remote: options.remote, environment: environment)
        if let pipeWire, accepts(pipeWire) { return (.pipewire, "PipeWire answers at \(pipeWire)") }
        let pulse = pulseSocket(server: options.pulseServer, environment: environment)
        if let pulse, accepts(pulse) {
            if let problem = PulseLibrary.load() {
                return (.pipewire, "no PipeWire; PulseAudio answers at \(pulse), but libpulse cannot be loaded (\(problem)); waiting for PipeWire")
            }
            return (.pulseaudio, "no PipeWire; PulseAudio answers at \(pulse)")
        }
        return (.pipewire, "neither PipeWire nor PulseAudio answers yet; waiting for PipeWire")
    }

    static func pipeWireSocket(remote: String?, environment: [String: String]) -> String? {
        let name = remote ?? environment["PIPEWIRE_REMOTE"] ?? "pipewire-0"
        if name.hasPrefix("/") { return name }
        guard let directory = environment["PIPEWIRE_RUNTIME_DIR"] ?? environment["XDG_RUNTIME_DIR"] else { return nil }
        return "\(directory)/\(name)"
    }

    static func pulseSocket(server: String?, environment: [String: String]) -> String? {
        if let server = server ?? environment["PULSE_SERVER"] {
            let path = server.hasPrefix("unix:") ? String(server.dropFirst(5)) : server
            return path.hasPrefix("/") ? path : nil
        }
        guard let directory = environment["PULSE_RUNTIME_PATH"].map({ $0 }) ?? environment["XDG_RUNTIME_DIR"].map({ "\($0)/pulse" })
        else { return nil }
        return "\(directory)/native"
    }

    /// Whether a Unix stream socket at `path` accepts a connection now.
    static func accepts(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }
}

/// `--backend`: which audio server to attach to.
public enum BackendChoice: String, Sendable, CaseIterable {
    case auto
    case pipewire
    case pulseaudio
}
