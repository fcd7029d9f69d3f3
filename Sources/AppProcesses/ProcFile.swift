#if canImport(Glibc)
import Glibc
#endif

/// A file of `/proc` read with open, read until its end, close. Foundation's readers stat the
/// file, and build an error object for every file that is not there (a process's missing
/// `/.flatpak-info`); a call's first stream waited ~1 ms for a dozen of them. They also stop
/// after one read, where the size a `/proc` file gives (0) says: 4 KiB of `/proc/PID/maps`.
public enum ProcFile {
    /// The file's bytes, up to `limit`; nil when it cannot be read.
    public static func bytes(_ path: String, limit: Int = 65_536) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while contents.count < limit {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            contents.append(contentsOf: chunk[..<count])
        }
        return contents
    }

    /// The file as text, up to `limit` bytes (invalid UTF-8 repaired).
    public static func text(_ path: String, limit: Int = 65_536) -> String? {
        bytes(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
    }
}
