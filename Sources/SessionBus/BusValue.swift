// BusValue: one D-Bus value of any type, as sent and received by SessionBus. Arrays carry their
// element signature so that an empty array still has a type on the wire.

import Glibc

/// A D-Bus value. Basic types map one to one; containers nest.
///
/// Dictionaries are arrays of `.dictEntry` (signature `a{kv}`): use ``dictionary(_:)`` for the
/// common `a{sv}`, and ``dictionaryValue`` to read one back.
public indirect enum BusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An array; `element` is the signature of one element (`"s"`, `"{sv}"`, `"(ss)"`).
    case array(element: String, [BusValue])
    /// A dictionary entry; valid only as the element of an array with element signature `{kv}`.
    case dictEntry(key: BusValue, value: BusValue)
    case structure([BusValue])
    case variant(BusValue)
    /// A file descriptor (`h`), only ever read: where one was, e.g. the `ProcessFD` that
    /// dbus-daemon 1.15.2 and later (Debian 13) add to GetConnectionCredentials. The descriptor
    /// itself is not kept (it belongs to the message), and this API never sends one.
    case unixFD

    /// The D-Bus signature of this value (one complete type).
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        case .unixFD: "h"
        }
    }

    /// The concatenated signature of a list of values (a message body).
    public static func signature(of values: [BusValue]) -> String {
        values.map(\.signature).joined()
    }
}

// MARK: - Validity

extension String {
    /// Whether it holds a NUL, where a C string (what sd-bus takes) would end. C's `strlen`
    /// over its UTF-8: a 4 MiB string is read in a millisecond, not byte by byte in Swift.
    var containsNUL: Bool { withCString { strlen($0) } != utf8.count }
}

extension BusValue {
    /// Throws InvalidArgs if the value cannot be sent: a string with NUL, a malformed object path
    /// or signature, an array element of another type than the array's, a dictionary entry
    /// outside an array or with a non-basic key, an empty structure.
    public func validate() throws(BusError) {
        try validate(insideArray: false)
    }

    private func validate(insideArray: Bool) throws(BusError) {
        switch self {
        case .string(let s):
            guard !s.containsNUL else { throw .invalidArgs("strings must not contain NUL characters") }
        case .objectPath(let s):
            guard BusNames.isValidObjectPath(s) else { throw .invalidArgs("invalid object path \"\(s)\"") }
        case .signature(let s):
            guard BusNames.isValidSignature(s) else { throw .invalidArgs("invalid signature \"\(s)\"") }
        case .array(let element, let items):
            guard BusNames.isSingleCompleteType("a" + element) else {
                throw .invalidArgs("invalid array element signature \"\(element)\"")
            }
            for item in items {
                guard item.signature == element else {
                    throw .invalidArgs("array of \"\(element)\" holds a \"\(item.signature)\" element")
                }
                try item.validate(insideArray: true)
            }
        case .dictEntry(let key, let value):
            guard insideArray else { throw .invalidArgs("a dictionary entry must be an array element") }
            guard key.signature.count == 1, key.signature != "v" else {
                throw .invalidArgs("dictionary keys must be of a basic type")
            }
            try key.validate(insideArray: false)
            try value.validate(insideArray: false)
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidArgs("empty structures are not allowed") }
            for field in fields { try field.validate(insideArray: false) }
        case .variant(let inner):
            try inner.validate(insideArray: false)
        case .unixFD:
            throw .invalidArgs("file descriptors cannot be sent")
        default:
            break
        }
    }
}

// MARK: - Building

extension BusValue {
    /// An `a{sv}` dictionary; entries are sorted by key so that the wire form is deterministic.
    public static func dictionary(_ entries: [String: BusValue]) -> BusValue {
        .array(
            element: "{sv}",
            entries.sorted { $0.key < $1.key }.map { .dictEntry(key: .string($0.key), value: .variant($0.value)) })
    }

    /// An `as` array.
    public static func strings(_ strings: [String]) -> BusValue {
        .array(element: "s", strings.map(BusValue.string))
    }
}

// MARK: - Reading

extension BusValue {
    /// The text of a string, object path or signature.
    public var stringValue: String? {
        switch self {
        case .string(let s), .objectPath(let s), .signature(let s): s
        default: nil
        }
    }
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var byteValue: UInt8? { if case .byte(let v) = self { v } else { nil } }
    public var int32Value: Int32? { if case .int32(let v) = self { v } else { nil } }
    public var uint32Value: UInt32? { if case .uint32(let v) = self { v } else { nil } }
    public var int64Value: Int64? { if case .int64(let v) = self { v } else { nil } }
    public var uint64Value: UInt64? { if case .uint64(let v) = self { v } else { nil } }
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    /// The elements of an array.
    public var arrayValue: [BusValue]? { if case .array(_, let v) = self { v } else { nil } }
    /// The fields of a structure.
    public var structureValue: [BusValue]? { if case .structure(let v) = self { v } else { nil } }
    /// The content of a variant.
    public var variantValue: BusValue? { if case .variant(let v) = self { v } else { nil } }

    /// An `a{s*}` array as a dictionary; variant values are unwrapped (`a{sv}` gives the contents).
    public var dictionaryValue: [String: BusValue]? {
        guard case .array(let element, let entries) = self, element.hasPrefix("{s") else { return nil }
        var result: [String: BusValue] = [:]
        for entry in entries {
            guard case .dictEntry(.string(let key), let value) = entry else { return nil }
            result[key] = value.variantValue ?? value
        }
        return result
    }
}

extension BusValue: CustomStringConvertible {
    /// A compact, busctl-like rendering for logs and test failures.
    public var description: String {
        switch self {
        case .byte(let v): "\(v)"
        case .bool(let v): "\(v)"
        case .int16(let v): "\(v)"
        case .uint16(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .uint32(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .uint64(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v), .objectPath(let v), .signature(let v): "\"\(v)\""
        case .array(_, let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .dictEntry(let key, let value): "\(key): \(value)"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        case .variant(let inner): "<\(inner.signature)> \(inner)"
        case .unixFD: "fd"
        }
    }
}
