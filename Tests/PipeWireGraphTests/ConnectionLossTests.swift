#if canImport(Glibc)
import Glibc
#endif
@testable import PipeWireGraph
import Testing

/// Which errors on the core mean PipeWire is gone (and the daemon connects again): a server
/// killed under load can make the socket's read fail with ECONNRESET before the hang-up is seen;
/// taken for an ordinary error, the daemon stayed unattached for good (the busy-loop CI, the
/// fault test that kills PipeWire during a rules reload).
@Suite struct ConnectionLossTests {
    @Test func aResetOrAHangUpIsTheConnectionLost() {
        for error in [EPIPE, ECONNRESET, ECONNABORTED, ENOTCONN, ESHUTDOWN] {
            #expect(GraphSession.isConnectionLoss(-error), "\(String(cString: strerror(error)))")
        }
    }

    @Test func theServersOwnErrorsAreNot() {
        for error in [ENOENT, EINVAL, EPERM, EBUSY, ENOMEM] {
            #expect(!GraphSession.isConnectionLoss(-error), "\(String(cString: strerror(error)))")
        }
    }
}
