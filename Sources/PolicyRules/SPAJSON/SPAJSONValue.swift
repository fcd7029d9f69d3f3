/// A value read from an SPA-JSON rules file, with the line it starts on.
///
/// SPA-JSON (PipeWire's relaxed JSON) does not distinguish `Music` from `"Music"` in most
/// places, but PipeWire's match rules do (`null` vs `"null"`, modifiers after `!`), so a
/// bare token keeps its raw text and a quoted one keeps its unescaped text.
public struct SPAJSONValue: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case object([SPAJSONMember])
        case array([SPAJSONValue])
        /// A quoted string, unescaped.
        case string(String)
        /// An unquoted token as written: `null`, `true`, `12`, `-12dB`, `Music`, `~^sd_`.
        case bare(String)
    }

    public var kind: Kind
    /// 1-based line of the value's first character.
    public var line: Int

    public init(_ kind: Kind, line: Int) {
        self.kind = kind
        self.line = line
    }

    /// `null` written bare (a quoted `"null"` is the string "null", as in PipeWire).
    public var isNull: Bool { kind == .bare("null") }

    /// Text of a string or bare token; `nil` for containers and `null`.
    public var text: String? {
        switch kind {
        case .string(let text): text
        case .bare(let text): text == "null" ? nil : text
        case .object, .array: nil
        }
    }

    /// `true` / `false`, bare or quoted (PipeWire accepts both).
    public var bool: Bool? {
        switch text {
        case "true": true
        case "false": false
        default: nil
        }
    }

    /// A number as libspa reads one (`spa_json_is_float`), bare or quoted.
    public var number: Double? {
        guard let text, SPAJSONReader.isNumber(text) else { return nil }
        return Double(text)
    }

    /// A whole decimal number.
    public var integer: Int? {
        guard let text else { return nil }
        return Int(text)
    }

    public var members: [SPAJSONMember]? {
        if case .object(let members) = kind { return members }
        return nil
    }

    public var elements: [SPAJSONValue]? {
        if case .array(let elements) = kind { return elements }
        return nil
    }

    /// What the value is, for error messages: `an object`, `the string "abc"`.
    public var typeDescription: String {
        switch kind {
        case .object: return "an object"
        case .array: return "an array"
        case .string(let text): return "the string \"\(text)\""
        case .bare(let text):
            if text == "null" { return "null" }
            if text == "true" || text == "false" { return text }
            if SPAJSONReader.isNumber(text) { return "the number \(text)" }
            return "the word \(text)"
        }
    }
}

/// One `key = value` of an object, in file order (duplicates kept: later ones win where
/// a key is looked up, exactly like PipeWire's property updates).
public struct SPAJSONMember: Hashable, Sendable {
    public var key: String
    public var line: Int
    public var value: SPAJSONValue

    public init(key: String, line: Int, value: SPAJSONValue) {
        self.key = key
        self.line = line
        self.value = value
    }
}
