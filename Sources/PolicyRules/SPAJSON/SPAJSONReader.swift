import CPipeWire

/// Reads SPA-JSON with libspa's own tokenizer (`spa_json_next`), so a file means here
/// what it means to PipeWire: relaxed JSON, `#` comments, `=` or `:` between key and
/// value, optional commas, bare words, and a top level that may omit its braces.
///
/// libspa only tokenizes; this type builds the tree and adds the checks a validator
/// needs and libspa leaves out (an unclosed or mismatched bracket, a key without a
/// value), reporting each with its line.
public enum SPAJSONReader {
    /// Deep nesting is never meaningful in a rules file; stop before the stack does.
    static let maximumDepth = 64

    /// Parses a whole file; the result is always an object (the file's top level).
    public static func read(_ text: String, file: String) throws(RulesDiagnostic) -> SPAJSONValue {
        try read(bytes: Array(text.utf8), file: file)
    }

    /// Parses a whole file's bytes.
    public static func read(bytes: [UInt8], file: String) throws(RulesDiagnostic) -> SPAJSONValue {
        var parser = Parser(bytes: bytes, file: file)
        return try parser.parseDocument()
    }

    /// libspa's number test (`spa_json_is_float`): `12`, `-0.5`, `1e3`; not `inf`, `0x10`.
    static func isNumber(_ text: String) -> Bool {
        var bytes = Array(text.utf8CString)
        let length = Int32(bytes.count - 1)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            spa_json_is_float(buffer.baseAddress, length)
        }
    }

    /// Unescapes a token like libspa (`spa_json_parse_stringn`): a quoted token loses its
    /// quotes and escapes; anything else is returned as written.
    static func unescape(token: String) -> String? {
        var source = Array(token.utf8CString)
        let length = Int32(source.count - 1)
        var result = [CChar](repeating: 0, count: source.count + 1)
        let status = source.withUnsafeMutableBufferPointer { input in
            result.withUnsafeMutableBufferPointer { output in
                spa_json_parse_stringn(input.baseAddress, length, output.baseAddress, Int32(output.count))
            }
        }
        guard status >= 0 else { return nil }
        return String(decoding: result.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// One parse: owns a NUL-terminated copy of the bytes (libspa's number check reads up
/// to a terminator) and the iterators, which live on the heap because a child iterator
/// keeps a pointer to its parent.
private struct Parser {
    let bytes: [CChar]
    let file: String
    let lines: LineTable

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes.map { CChar(bitPattern: $0) } + [0]
        self.file = file
        self.lines = LineTable(bytes)
    }

    mutating func parseDocument() throws(RulesDiagnostic) -> SPAJSONValue {
        let bytes = self.bytes
        let result: Result<SPAJSONValue, RulesDiagnostic> = bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            let length = buffer.count - 1
            do throws(RulesDiagnostic) {
                return .success(try document(base: base, length: length))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func document(base: UnsafePointer<CChar>, length: Int) throws(RulesDiagnostic) -> SPAJSONValue {
        let top = UnsafeMutablePointer<spa_json>.allocate(capacity: 1)
        defer { top.deallocate() }
        spa_json_init(top, base, length)

        // A top level written with braces: `{ ... }` and nothing after it.
        var first: UnsafePointer<CChar>?
        let firstLength = spa_json_next(top, &first)
        if firstLength > 0, let first, first.pointee == CChar(UInt8(ascii: "{")) {
            let value = try container(opening: first, parent: top, base: base, depth: 1)
            var extra: UnsafePointer<CChar>?
            let extraLength = spa_json_next(top, &extra)
            if extraLength != 0, let extra {
                throw diagnostic(at: extra - base, "unexpected content after the closing '}' of the file")
            }
            return value
        }

        // Braces omitted, as in pipewire.conf: the whole file is the object's body.
        spa_json_init(top, base, length)
        let members = try objectBody(top, opening: nil, base: base, depth: 1)
        return SPAJSONValue(.object(members), line: 1)
    }

    /// Reads the container whose opening bracket `parent` just returned.
    private func container(
        opening: UnsafePointer<CChar>, parent: UnsafeMutablePointer<spa_json>,
        base: UnsafePointer<CChar>, depth: Int
    ) throws(RulesDiagnostic) -> SPAJSONValue {
        let line = lines.line(at: opening - base)
        guard depth <= SPAJSONReader.maximumDepth else {
            throw diagnostic(at: opening - base, "nesting deeper than \(SPAJSONReader.maximumDepth) levels")
        }
        let child = UnsafeMutablePointer<spa_json>.allocate(capacity: 1)
        defer { child.deallocate() }
        spa_json_enter(parent, child)
        if opening.pointee == CChar(UInt8(ascii: "{")) {
            let members = try objectBody(child, opening: opening, base: base, depth: depth)
            return SPAJSONValue(.object(members), line: line)
        }
        let elements = try arrayBody(child, opening: opening, base: base, depth: depth)
        return SPAJSONValue(.array(elements), line: line)
    }

    private func objectBody(
        _ iterator: UnsafeMutablePointer<spa_json>, opening: UnsafePointer<CChar>?,
        base: UnsafePointer<CChar>, depth: Int
    ) throws(RulesDiagnostic) -> [SPAJSONMember] {
        var members: [SPAJSONMember] = []
        while true {
            var keyToken: UnsafePointer<CChar>?
            let keyLength = spa_json_next(iterator, &keyToken)
            if keyLength == 0 {
                try checkEnd(iterator, opening: opening, base: base)
                return members
            }
            guard keyLength > 0, let keyToken else { throw tokenError(iterator, base: base) }
            let keyOffset = keyToken - base
            if keyToken.pointee == CChar(UInt8(ascii: "{")) || keyToken.pointee == CChar(UInt8(ascii: "[")) {
                throw diagnostic(at: keyOffset, "expected a key, found \(keyToken.pointee == CChar(UInt8(ascii: "{")) ? "an object" : "an array")")
            }
            try checkClosed(keyToken, Int(keyLength), base: base)
            guard let key = SPAJSONReader.unescape(token: text(keyToken, Int(keyLength))) else {
                throw diagnostic(at: keyOffset, "invalid key \(text(keyToken, Int(keyLength)))")
            }

            var valueToken: UnsafePointer<CChar>?
            let valueLength = spa_json_next(iterator, &valueToken)
            if valueLength == 0 {
                throw diagnostic(at: keyOffset, "key '\(key)' has no value")
            }
            guard valueLength > 0, let valueToken else { throw tokenError(iterator, base: base) }
            let value = try self.value(valueToken, Int(valueLength), parent: iterator, base: base, depth: depth)
            members.append(SPAJSONMember(key: key, line: lines.line(at: keyOffset), value: value))
        }
    }

    private func arrayBody(
        _ iterator: UnsafeMutablePointer<spa_json>, opening: UnsafePointer<CChar>,
        base: UnsafePointer<CChar>, depth: Int
    ) throws(RulesDiagnostic) -> [SPAJSONValue] {
        var elements: [SPAJSONValue] = []
        while true {
            var token: UnsafePointer<CChar>?
            let length = spa_json_next(iterator, &token)
            if length == 0 {
                try checkEnd(iterator, opening: opening, base: base)
                return elements
            }
            guard length > 0, let token else { throw tokenError(iterator, base: base) }
            elements.append(try value(token, Int(length), parent: iterator, base: base, depth: depth))
        }
    }

    private func value(
        _ token: UnsafePointer<CChar>, _ length: Int, parent: UnsafeMutablePointer<spa_json>,
        base: UnsafePointer<CChar>, depth: Int
    ) throws(RulesDiagnostic) -> SPAJSONValue {
        let offset = token - base
        let line = lines.line(at: offset)
        switch UInt8(bitPattern: token.pointee) {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return try container(opening: token, parent: parent, base: base, depth: depth + 1)
        case UInt8(ascii: "\""):
            try checkClosed(token, length, base: base)
            let raw = text(token, length)
            guard let unescaped = SPAJSONReader.unescape(token: raw) else {
                throw diagnostic(at: offset, "invalid string \(raw)")
            }
            return SPAJSONValue(.string(unescaped), line: line)
        default:
            return SPAJSONValue(.bare(text(token, length)), line: line)
        }
    }

    /// libspa returns a string still open at the end of the data as a token; refuse it.
    private func checkClosed(_ token: UnsafePointer<CChar>, _ length: Int, base: UnsafePointer<CChar>) throws(RulesDiagnostic) {
        guard token.pointee == CChar(UInt8(ascii: "\"")) else { return }
        var backslashes = 0
        var index = length - 2
        while index > 0 && token[index] == CChar(UInt8(ascii: "\\")) {
            backslashes += 1
            index -= 1
        }
        if length < 2 || token[length - 1] != CChar(UInt8(ascii: "\"")) || backslashes % 2 == 1 {
            throw diagnostic(at: token - base, "string not closed before the end of the file")
        }
    }

    /// libspa ends a container at any closing bracket, or silently at the end of the
    /// data; tell apart the right bracket, the wrong one, and none at all.
    private func checkEnd(
        _ iterator: UnsafeMutablePointer<spa_json>, opening: UnsafePointer<CChar>?, base: UnsafePointer<CChar>
    ) throws(RulesDiagnostic) {
        let position = iterator.pointee.cur!
        let atEnd = position >= iterator.pointee.end
        guard let opening else {
            if !atEnd {
                throw diagnostic(at: position - base, "unexpected '\(Character(UnicodeScalar(UInt8(bitPattern: position.pointee))))' with no matching opening bracket")
            }
            return
        }
        let open = Character(UnicodeScalar(UInt8(bitPattern: opening.pointee)))
        let close: Character = open == "{" ? "}" : "]"
        let openLine = lines.line(at: opening - base)
        if atEnd {
            throw diagnostic(at: max(0, position - base - 1), "unexpected end of file: '\(open)' opened on line \(openLine) is never closed")
        }
        let found = Character(UnicodeScalar(UInt8(bitPattern: position.pointee)))
        if found != close {
            throw diagnostic(at: position - base, "expected '\(close)' to close '\(open)' from line \(openLine), found '\(found)'")
        }
    }

    /// `spa_json_next` returned an error: say which one.
    private func tokenError(_ iterator: UnsafeMutablePointer<spa_json>, base: UnsafePointer<CChar>) -> RulesDiagnostic {
        let position = iterator.pointee.cur!
        if position >= iterator.pointee.end {
            return diagnostic(at: max(0, position - base - 1), "unexpected end of file inside a string or container")
        }
        let byte = UInt8(bitPattern: position.pointee)
        if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
            return diagnostic(at: position - base, "string not closed before the end of the line")
        }
        if byte < 32 || byte == 127 {
            return diagnostic(at: position - base, "control character 0x\(String(byte, radix: 16)) inside a string")
        }
        if iterator.pointee.state == 5 { // __ESC: the byte after a backslash
            return diagnostic(at: position - base, "invalid escape '\\\(Character(UnicodeScalar(byte)))' in a string")
        }
        return diagnostic(at: position - base, "invalid UTF-8 in a string")
    }

    private func text(_ token: UnsafePointer<CChar>, _ length: Int) -> String {
        let buffer = UnsafeBufferPointer(start: token, count: length)
        return String(decoding: buffer.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func diagnostic(at offset: Int, _ reason: String) -> RulesDiagnostic {
        RulesDiagnostic(file: file, line: lines.line(at: offset), reason: reason)
    }
}
