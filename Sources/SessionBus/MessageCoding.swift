// MessageCoding: BusValue to and from sd_bus_message bodies with the non-variadic sd-bus calls
// (append_basic / read_basic / open / enter / peek_type), so no variadic C wrapper is needed.

import CSystemd
import Glibc

/// Reads and writes message bodies. Bus thread only (messages belong to the bus).
enum MessageCoding {
    /// Appends `values` to `message`; throws InvalidArgs for values that cannot be sent.
    static func append(_ values: [BusValue], to message: OpaquePointer) throws(BusError) {
        for value in values { try append(value, to: message) }
    }

    /// The most values (counting every element of every container) decoded from one message: a
    /// peer cannot make us build millions of BusValues from one large array. Far above anything
    /// the audiosession API carries.
    static let maxValuesPerMessage = 100_000

    /// Reads every remaining value of the current body (or container).
    static func readAll(_ message: OpaquePointer) throws(BusError) -> [BusValue] {
        var budget = maxValuesPerMessage
        return try readAll(message, &budget)
    }

    /// Reads the next value, or nil at the end of the body / container.
    static func readOne(_ message: OpaquePointer) throws(BusError) -> BusValue? {
        var budget = maxValuesPerMessage
        return try readOne(message, &budget)
    }

    private static func readAll(_ message: OpaquePointer, _ budget: inout Int) throws(BusError) -> [BusValue] {
        var values: [BusValue] = []
        while let value = try readOne(message, &budget) { values.append(value) }
        return values
    }

    // MARK: - Writing

    static func append(_ value: BusValue, to message: OpaquePointer) throws(BusError) {
        switch value {
        case .byte(var v): try appendBasic(message, "y", &v)
        case .bool(let b):
            var v: Int32 = b ? 1 : 0
            try appendBasic(message, "b", &v)
        case .int16(var v): try appendBasic(message, "n", &v)
        case .uint16(var v): try appendBasic(message, "q", &v)
        case .int32(var v): try appendBasic(message, "i", &v)
        case .uint32(var v): try appendBasic(message, "u", &v)
        case .int64(var v): try appendBasic(message, "x", &v)
        case .uint64(var v): try appendBasic(message, "t", &v)
        case .double(var v): try appendBasic(message, "d", &v)
        case .string(let s): try appendText(message, "s", s)
        case .objectPath(let s):
            guard BusNames.isValidObjectPath(s) else { throw .invalidArgs("invalid object path \"\(s)\"") }
            try appendText(message, "o", s)
        case .signature(let s):
            guard BusNames.isValidSignature(s) else { throw .invalidArgs("invalid signature \"\(s)\"") }
            try appendText(message, "g", s)
        case .array(let element, let items):
            guard BusNames.isSingleCompleteType("a" + element) else {
                throw .invalidArgs("invalid array element signature \"\(element)\"")
            }
            for item in items where item.signature != element {
                throw .invalidArgs("array of \"\(element)\" holds a \"\(item.signature)\" element")
            }
            try container(message, "a", element) { () throws(BusError) in
                for item in items { try append(item, to: message) }
            }
        case .dictEntry(let key, let entryValue):
            try container(message, "e", key.signature + entryValue.signature) { () throws(BusError) in
                try append(key, to: message)
                try append(entryValue, to: message)
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidArgs("empty structures are not allowed") }
            try container(message, "r", fields.map(\.signature).joined()) { () throws(BusError) in
                for field in fields { try append(field, to: message) }
            }
        case .variant(let inner):
            try container(message, "v", inner.signature) { () throws(BusError) in try append(inner, to: message) }
        case .unixFD:
            throw .invalidArgs("file descriptors cannot be sent")
        }
    }

    private static func appendBasic<T>(_ message: OpaquePointer, _ type: Unicode.Scalar, _ value: inout T)
        throws(BusError)
    {
        let result = withUnsafePointer(to: &value) { sd_bus_message_append_basic(message, typeCode(type), $0) }
        try check(result, "append \(type)")
    }

    private static func appendText(_ message: OpaquePointer, _ type: Unicode.Scalar, _ text: String) throws(BusError) {
        // sd-bus takes C strings: an embedded NUL would silently truncate the value.
        guard !text.containsNUL else { throw .invalidArgs("strings must not contain NUL characters") }
        let result = text.withCString { sd_bus_message_append_basic(message, typeCode(type), $0) }
        try check(result, "append \(type)")
    }

    private static func container(
        _ message: OpaquePointer, _ type: Unicode.Scalar, _ contents: String, _ body: () throws(BusError) -> Void
    ) throws(BusError) {
        try check(contents.withCString { sd_bus_message_open_container(message, typeCode(type), $0) }, "open \(type)")
        try body()
        try check(sd_bus_message_close_container(message), "close \(type)")
    }

    // MARK: - Reading

    private static func readOne(_ message: OpaquePointer, _ budget: inout Int) throws(BusError) -> BusValue? {
        var type: CChar = 0
        var contentsPointer: UnsafePointer<CChar>? = nil
        let peeked = sd_bus_message_peek_type(message, &type, &contentsPointer)
        try check(peeked, "peek")
        if peeked == 0 { return nil }
        budget -= 1
        guard budget >= 0 else { throw .invalidArgs("more than \(maxValuesPerMessage) values in one message") }
        let contents = contentsPointer.map { String(cString: $0) } ?? ""
        switch Unicode.Scalar(UInt8(bitPattern: type)) {
        case "y": return .byte(try readBasic(message, type, UInt8(0)))
        case "b": return .bool(try readBasic(message, type, Int32(0)) != 0)
        case "n": return .int16(try readBasic(message, type, Int16(0)))
        case "q": return .uint16(try readBasic(message, type, UInt16(0)))
        case "i": return .int32(try readBasic(message, type, Int32(0)))
        case "u": return .uint32(try readBasic(message, type, UInt32(0)))
        case "x": return .int64(try readBasic(message, type, Int64(0)))
        case "t": return .uint64(try readBasic(message, type, UInt64(0)))
        case "d": return .double(try readBasic(message, type, Double(0)))
        case "s": return .string(try readText(message, type))
        case "o": return .objectPath(try readText(message, type))
        case "g": return .signature(try readText(message, type))
        case "a":
            let items = try enter(message, type, contents) { () throws(BusError) in try readAll(message, &budget) }
            return .array(element: contents, items)
        case "v":
            let inner = try enter(message, type, contents) { () throws(BusError) in try readOne(message, &budget) }
            guard let inner else { throw .invalidArgs("empty variant") }
            return .variant(inner)
        case "r":
            return .structure(try enter(message, type, contents) { () throws(BusError) in try readAll(message, &budget) })
        case "e":
            let fields = try enter(message, type, contents) { () throws(BusError) in try readAll(message, &budget) }
            guard fields.count == 2 else { throw .invalidArgs("malformed dictionary entry") }
            return .dictEntry(key: fields[0], value: fields[1])
        case "h":
            // Not part of this API, but read past: a reply may carry one among what was asked
            // for (GetConnectionCredentials' ProcessFD on dbus-daemon 1.15.2 and later).
            try check(sd_bus_message_skip(message, "h"), "skip a file descriptor")
            return .unixFD
        default:
            throw .invalidArgs("unsupported D-Bus type '\(Character(Unicode.Scalar(UInt8(bitPattern: type))))'")
        }
    }

    private static func readBasic<T>(_ message: OpaquePointer, _ type: CChar, _ initial: T) throws(BusError) -> T {
        var value = initial
        let result = withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(message, type, $0) }
        try check(result, "read")
        return value
    }

    private static func readText(_ message: OpaquePointer, _ type: CChar) throws(BusError) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        try check(sd_bus_message_read_basic(message, type, &pointer), "read")
        guard let pointer else { throw .invalidArgs("missing string") }
        return String(cString: pointer)
    }

    private static func enter<T>(
        _ message: OpaquePointer, _ type: CChar, _ contents: String, _ body: () throws(BusError) -> T
    ) throws(BusError) -> T {
        try check(contents.withCString { sd_bus_message_enter_container(message, type, $0) }, "enter")
        let result = try body()
        try check(sd_bus_message_exit_container(message), "exit")
        return result
    }

    // MARK: - Errors

    static func typeCode(_ scalar: Unicode.Scalar) -> CChar { CChar(bitPattern: UInt8(scalar.value)) }

    /// Turns a negative sd-bus result into InvalidArgs (coding failures are always the data's fault).
    private static func check(_ result: Int32, _ what: String) throws(BusError) {
        if result < 0 { throw .invalidArgs("cannot \(what): \(String(cString: strerror(-result)))") }
    }
}

extension BusError {
    /// An error for a failed sd-bus call: sd-bus's own errno → D-Bus error name mapping.
    init(errno code: Int32, _ context: String) {
        var error = sd_bus_error()
        _ = sd_bus_error_set_errno(&error, code < 0 ? -code : code)
        let name = error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        sd_bus_error_free(&error)
        self.init(name: name, message: "\(context): \(String(cString: strerror(code < 0 ? -code : code)))")
    }
}
