#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `descriptor`, retrying after a signal interrupted the call; false
/// (with `errno` set) if the kernel refused to take them all. What the log and the journal
/// share: both write with POSIX calls on the reaction thread.
func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written > 0 {
            offset += written
        } else if written < 0, errno == EINTR {
            continue
        } else {
            return false
        }
    }
    return true
}
