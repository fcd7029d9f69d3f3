/// A PipeWire release ("0.3.65", "1.4.2") as the server's core info and each client's
/// `core.version` property report it: which features a peer's library has depends on it.
public struct PipeWireVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var micro: Int

    public init(_ major: Int, _ minor: Int, _ micro: Int) {
        self.major = major
        self.minor = minor
        self.micro = micro
    }

    /// Reads "major.minor.micro"; anything after the numbers ("1.4.2-1~bpo12+1") is ignored.
    /// Nil when the text does not start with three numbers.
    public init?(_ text: String) {
        let numbers = text.split(separator: ".", maxSplits: 2).map { $0.prefix { $0.isASCII && $0.isNumber } }
        guard numbers.count == 3, let major = Int(numbers[0]), let minor = Int(numbers[1]), let micro = Int(numbers[2])
        else { return nil }
        self.init(major, minor, micro)
    }

    public static func < (lhs: PipeWireVersion, rhs: PipeWireVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.micro) < (rhs.major, rhs.minor, rhs.micro)
    }

    public var description: String { "\(major).\(minor).\(micro)" }
}
