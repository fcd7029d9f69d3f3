#if canImport(Glibc)
import Glibc
#endif

/// Ports on 127.0.0.1 for the real SIP phones of one test. Fixed ones clash when two test runs
/// share the machine (one stack's census beside another's: "Address already in use", and the
/// phone never comes up), so each phone takes a port free now, from a random start.
enum LoopbackPorts {
    /// A port `p` with `p + offset` free for UDP and TCP for every offset (a phone's SIP port and
    /// the RTP port it derives from it), and not in `taken`.
    static func free(offsets: [Int] = [0], avoiding taken: Set<Int> = []) -> Int {
        while true {
            let port = Int.random(in: 20_000...50_000)
            let ports = offsets.map { port + $0 }
            if ports.allSatisfy({ !taken.contains($0) && isFree($0, SOCK_DGRAM) && isFree($0, SOCK_STREAM) }) { return port }
        }
    }

    private static func isFree(_ port: Int, _ type: __socket_type) -> Bool {
        let descriptor = socket(AF_INET, Int32(type.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
