import AppProcesses
import PipeWireGraph

/// The process a PipeWire client is, from what the kernel vouches for: its socket's peer
/// (`pipewire.sec.pid`), never the pid it states — a native client could state another app's
/// pid and have its streams taken for that app's. The exception is pipewire-pulse, whose
/// per-pulse-client connections all have pipewire-pulse as their peer: for those, the pid the
/// pulse client stated is all there is (pipewire-pulse vouches for a sandboxed one separately:
/// `pipewire.access.portal.app_id`, from its own peer credentials).
struct VouchedProcess {
    /// Whether a pid is pipewire-pulse (by its command line), per pid.
    private var bridges: [Int32: Bool] = [:]

    mutating func pid(of client: Client) -> Int32? {
        guard let peer = client.securityPID, peer > 0 else { return client.statedPID }
        return isPulseBridge(peer) ? client.statedPID ?? peer : peer
    }

    private mutating func isPulseBridge(_ pid: Int32) -> Bool {
        if let known = bridges[pid] { return known }
        let commandLine = ProcFile.text("/proc/\(pid)/cmdline") ?? ""
        // 0.3.x runs the pipewire-pulse binary; 1.x runs `pipewire -c pipewire-pulse.conf`.
        let bridge = commandLine.contains("pipewire-pulse")
        if bridges.count > 256 { bridges.removeAll() }  // pids are reused: a bounded memory
        bridges[pid] = bridge
        return bridge
    }
}
