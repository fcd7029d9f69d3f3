/// The routing rule for a server that routes every stream itself (PulseAudio: its default,
/// stream-restore, the stream's own choice), where ``StreamRouting`` serves a graph we link.
///
/// A session whose route is the default device (the policy's, else the server's) leaves its
/// streams to the server and their user. A session's own route elsewhere (a preferred input, a
/// speaker override) moves each of its streams there once, and back to the default once when
/// its route is the default again. A stream its user or the server placed elsewhere, on a route
/// that is the default, is left where it is; one moved to its own route and moved again by its
/// user is not moved a second time for the same route.
public struct ServerRoutedStreams: Sendable {
    /// What to do with a stream, from where its session's route now is.
    public enum Step: Equatable, Sendable {
        case none
        /// To this device.
        case move(UInt32)
        /// Back to following the default.
        case backToDefault
    }

    /// Streams on a session's own route, with its device.
    private var routed: [StreamID: UInt32] = [:]

    public init() {}

    /// The stream's session's route is now `device`; `defaultDevice` is the default of its
    /// direction (the policy's choice, else the server's).
    public mutating func route(_ id: StreamID, to device: UInt32, defaultDevice: UInt32?) -> Step {
        guard device != defaultDevice else { return routed.removeValue(forKey: id) == nil ? .none : .backToDefault }
        guard routed[id] != device else { return .none }
        routed[id] = device
        return .move(device)
    }

    public mutating func forget(_ id: StreamID) { routed[id] = nil }

    /// Every stream on a session's own route (moved back to the default at exit).
    public var all: [StreamID] { routed.keys.sorted() }
}
