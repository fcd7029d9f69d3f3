// BusSignal: a signal as a subscriber receives it (BusConnection.signals).

/// A signal received by a subscription.
public struct BusSignal: Sendable, Hashable {
    /// The sender's unique name.
    public let sender: String
    public let path: String
    public let interface: String
    public let member: String
    public let arguments: [BusValue]
}
