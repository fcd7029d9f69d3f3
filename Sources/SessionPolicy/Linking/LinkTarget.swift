/// Where a stream should be linked now, and why: the answer of ``LinkTargetResolver``.
public enum LinkTarget: Hashable, Sendable {
    /// The stream's own named target exists: link there and stay there.
    case requested(LinkEndpoint)
    /// The stream follows the default device: link there, and move when the default changes.
    case followingDefault(LinkEndpoint)
    /// Leave the stream unlinked.
    case none(Reason)

    public enum Reason: Hashable, Sendable {
        /// There is no device of the stream's direction at all.
        case noDevice
        /// The named target is gone and the stream asked not to be reconnected.
        case requestedTargetGoneNoReconnect
    }

    /// The endpoint to link to, if any.
    public var endpoint: LinkEndpoint? {
        switch self {
        case .requested(let endpoint), .followingDefault(let endpoint): endpoint
        case .none: nil
        }
    }
}
