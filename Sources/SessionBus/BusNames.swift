// BusNames: the D-Bus specification's syntax rules for object paths, interface / member / bus
// names and type signatures, so that bad descriptions fail at the caller with a clear error
// instead of deep inside sd-bus on the bus thread.

/// Syntax checks from the D-Bus specification ("Valid Names", "Type System").
public enum BusNames {
    /// `/`, or `/`-separated non-empty elements of `[A-Za-z0-9_]`.
    public static func isValidObjectPath(_ path: String) -> Bool {
        if path == "/" { return true }
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/"), bytes.last != UInt8(ascii: "/") else { return false }
        var previousWasSlash = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false }
                previousWasSlash = true
            } else {
                guard isWordByte(byte) else { return false }
                previousWasSlash = false
            }
        }
        return true
    }

    /// Two or more `.`-separated elements, each `[A-Za-z_][A-Za-z0-9_]*`, at most 255 bytes
    /// (interfaces and error names).
    public static func isValidInterfaceName(_ name: String) -> Bool {
        guard name.utf8.count <= 255 else { return false }
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        return elements.count >= 2 && elements.allSatisfy { isValidMemberName(String($0)) }
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`, at most 255 bytes (methods, properties, signals).
    public static func isValidMemberName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 255, !isDigit(first) else { return false }
        return bytes.allSatisfy(isWordByte)
    }

    /// A well-known bus name: like an interface name, but elements may also contain `-`.
    public static func isValidWellKnownName(_ name: String) -> Bool {
        guard name.utf8.count <= 255, !name.hasPrefix(":") else { return false }
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        return elements.count >= 2 && elements.allSatisfy { element in
            guard let first = element.utf8.first, !isDigit(first) else { return false }
            return element.utf8.allSatisfy { isWordByte($0) || $0 == UInt8(ascii: "-") }
        }
    }

    /// A signature of zero or more complete types.
    public static func isValidSignature(_ signature: String) -> Bool {
        completeTypes(in: signature) != nil
    }

    /// A signature of exactly one complete type (array elements, variant contents, properties).
    public static func isSingleCompleteType(_ signature: String) -> Bool {
        completeTypes(in: signature)?.count == 1
    }

    /// Splits a signature into its complete types, or nil if it is not valid.
    public static func completeTypes(in signature: String) -> [String]? {
        let bytes = Array(signature.utf8)
        guard bytes.count <= 255 else { return nil }
        var types: [String] = []
        var index = 0
        while index < bytes.count {
            guard let end = endOfCompleteType(bytes, from: index, arrayDepth: 0, structDepth: 0) else { return nil }
            types.append(String(decoding: bytes[index..<end], as: UTF8.self))
            index = end
        }
        return types
    }

    private static let basicTypes = Set("ybnqiuxtdsogh".utf8)

    private static func endOfCompleteType(_ bytes: [UInt8], from start: Int, arrayDepth: Int, structDepth: Int)
        -> Int?
    {
        guard start < bytes.count, arrayDepth <= 32, structDepth <= 32 else { return nil }
        let byte = bytes[start]
        if basicTypes.contains(byte) || byte == UInt8(ascii: "v") { return start + 1 }
        switch byte {
        case UInt8(ascii: "a"):
            if start + 1 < bytes.count, bytes[start + 1] == UInt8(ascii: "{") {
                // a{kv}: a basic key and one complete value.
                let keyIndex = start + 2
                guard keyIndex < bytes.count, basicTypes.contains(bytes[keyIndex]),
                    let valueEnd = endOfCompleteType(
                        bytes, from: keyIndex + 1, arrayDepth: arrayDepth + 1, structDepth: structDepth),
                    valueEnd < bytes.count, bytes[valueEnd] == UInt8(ascii: "}")
                else { return nil }
                return valueEnd + 1
            }
            return endOfCompleteType(bytes, from: start + 1, arrayDepth: arrayDepth + 1, structDepth: structDepth)
        case UInt8(ascii: "("):
            var index = start + 1
            guard index < bytes.count, bytes[index] != UInt8(ascii: ")") else { return nil }
            while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
                guard let end = endOfCompleteType(bytes, from: index, arrayDepth: arrayDepth, structDepth: structDepth + 1)
                else { return nil }
                index = end
            }
            return index < bytes.count ? index + 1 : nil
        default:
            return nil
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || isDigit(byte) || byte == UInt8(ascii: "_")
    }
}
