import SessionPolicy

/// The streams a session's own route took off PulseAudio's default (a preferred input, a
/// speaker override): each is moved there once, and back to the default when its route is
/// the default again. A stream its user or PulseAudio placed elsewhere, on a route that is
/// the default, is left where it is.
struct SessionRoutes {
    /// What to do with a stream, from where its session's route now is.
    enum Step: Equatable {
        case none
        /// To this device (its index).
        case move(UInt32)
        /// Back to following the default.
        case backToDefault
    }

    /// Streams on a session's own route, with its device.
    private var routed: [StreamID: UInt32] = [:]

    /// The stream's route is now `device`, or the default (nil).
    mutating func route(_ id: StreamID, to device: UInt32?) -> Step {
        guard let device else { return routed.removeValue(forKey: id) == nil ? .none : .backToDefault }
        guard routed[id] != device else { return .none }
        routed[id] = device
        return .move(device)
    }

    mutating func forget(_ id: StreamID) { routed[id] = nil }

    /// Every stream on a session's own route.
    var all: [StreamID] { routed.keys.sorted() }
}
