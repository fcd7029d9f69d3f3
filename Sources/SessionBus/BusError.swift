// BusError: a D-Bus error (name + message), optionally carrying a numeric code. Both what a
// service replies and what a client call throws.

/// A D-Bus error.
///
/// On the wire an error reply's body is `(s message)`; when ``code`` is set it is `(s message,
/// i code)` and the message text ends with ` (code N)`, so that clients that only show the text
/// (busctl, gdbus) still show the code. Decoding a reply strips that suffix again.
public struct BusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error name, e.g. `org.audiosession.Error.BadParam`.
    public var name: String
    /// Human-readable text (without the ` (code N)` suffix).
    public var message: String
    /// A numeric code (e.g. an AVAudioSession error code), if the error has one.
    public var code: Int32?

    public init(name: String, message: String, code: Int32? = nil) {
        self.name = name
        self.message = message
        self.code = code
    }

    public var description: String {
        name + ": " + message + (code.map { " (code \($0))" } ?? "")
    }

    /// The message text as sent on the wire (with the code suffix when there is a code).
    var wireMessage: String { message + (code.map { " (code \($0))" } ?? "") }

    /// Rebuilds an error from a reply: strips the code suffix the sender added.
    init(name: String, wireMessage: String, code: Int32?) {
        var text = wireMessage
        if let code, text.hasSuffix(" (code \(code))") {
            text.removeLast(" (code \(code))".count)
        }
        self.init(name: name, message: text, code: code)
    }
}

extension BusError {
    /// The prefix of the daemon's own error names.
    public static let audioSessionErrorPrefix = "org.audiosession.Error."

    /// `org.audiosession.Error.<name>` carrying `code` (an AVAudioSession error code).
    public static func audioSession(_ name: String, code: Int32, message: String) -> BusError {
        BusError(name: audioSessionErrorPrefix + name, message: message, code: code)
    }

    /// `org.freedesktop.DBus.Error.InvalidArgs`: the arguments do not fit the method.
    public static func invalidArgs(_ message: String) -> BusError {
        BusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }

    /// `org.freedesktop.DBus.Error.Failed`: a generic failure.
    public static func failed(_ message: String) -> BusError {
        BusError(name: "org.freedesktop.DBus.Error.Failed", message: message)
    }

    /// `org.freedesktop.DBus.Error.LimitsExceeded`: a peer has too many calls in flight.
    public static func limitsExceeded(_ message: String) -> BusError {
        BusError(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: message)
    }

    /// `org.freedesktop.DBus.Error.Disconnected`: the connection is closed or was lost.
    public static func disconnected(_ message: String = "the bus connection is closed") -> BusError {
        BusError(name: "org.freedesktop.DBus.Error.Disconnected", message: message)
    }

    /// `org.freedesktop.DBus.Error.NoReply`: no reply within the timeout.
    public static let noReplyName = "org.freedesktop.DBus.Error.NoReply"

    /// `org.audiosession.Error.NameTaken`: another process owns the well-known name we need.
    public static func nameTaken(_ name: String) -> BusError {
        BusError(
            name: audioSessionErrorPrefix + "NameTaken",
            message: "the bus name \(name) is already owned by another connection (is another audiosessiond running?)")
    }
}
