import SessionPolicy

/// In the coordinator's tests a bare number is a playback stream or an output device, as most
/// of their streams are; capture streams and input devices are written out (`.capture(3)`).
extension StreamID: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: UInt32) { self.init(.playback, value) }
}

extension DeviceID: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: UInt32) { self.init(.output, value) }
}
