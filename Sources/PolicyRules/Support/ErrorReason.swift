#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension Error {
    /// A one-line reason for a file-system error: the system's text for the underlying errno
    /// ("No such file or directory"), else the error itself. (`localizedDescription` needs
    /// all of Foundation; FoundationEssentials is enough for the daemon.) Shared with the
    /// daemon, which reports the permission store's errors the same way.
    package var fileSystemReason: String {
        if let error = self as? CocoaError, let posix = error.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        if let posix = self as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        return String(describing: self)
    }
}
