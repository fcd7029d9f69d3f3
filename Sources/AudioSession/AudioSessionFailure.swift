import SessionBus
import SessionPolicy

/// What the library throws: the AVAudioSession error code (Apple's raw values, e.g.
/// `badParam` = -50), the D-Bus error name it came as, and the daemon's explanation.
///
/// ```swift
/// do { try await session.setCategory(.record, options: .defaultToSpeaker) }
/// catch let failure as AudioSessionFailure where failure.code == .badParam { ... }
/// ```
public struct AudioSessionFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: AudioSessionError
    /// `org.audiosession.Error.BadParam`, or a D-Bus error name for transport failures.
    public var name: String
    public var message: String

    public init(code: AudioSessionError, name: String, message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    /// Reads a daemon error (`org.audiosession.Error.*` with its code); transport errors become
    /// `mediaServicesFailed` ("the daemon is not running") or `unspecified`.
    init(_ error: BusError) {
        if error.name.hasPrefix(BusError.audioSessionErrorPrefix), let raw = error.code,
            let code = AudioSessionError(code: Int(raw))
        {
            self.init(code: code, name: error.name, message: error.message)
            return
        }
        switch error.name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            self.init(
                code: .mediaServicesFailed, name: error.name,
                message: "audiosessiond is not running (nothing owns \(SessionBusAPI.busName) on the session bus)")
        case "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod":
            self.init(code: .expiredSession, name: error.name, message: error.message)
        case "org.freedesktop.DBus.Error.Disconnected", "org.freedesktop.DBus.Error.NoReply":
            self.init(code: .mediaServicesFailed, name: error.name, message: error.message)
        default:
            self.init(code: .unspecified, name: error.name, message: error.message)
        }
    }

    public var description: String { "\(message) (\(code.wireName), code \(code.code))" }
}
