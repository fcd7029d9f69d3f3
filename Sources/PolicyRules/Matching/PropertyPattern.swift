/// The value side of one `key = value` in a `matches` object, with PipeWire's meaning.
///
/// We follow `pw_conf_find_match` as documented for PipeWire 1.0 and later
/// (pipewire.conf(5), "Match rules"), which extends the 0.3.65 behaviour:
///
/// | written | matches when the property is |
/// |---|---|
/// | `Music`, `"Music"` | exactly "Music" (case-sensitive) |
/// | `"~^Mus"` | found by the POSIX extended regex `^Mus` (a search, not anchored) |
/// | `null` | absent |
/// | `"null"` | the string "null" |
/// | `!Music`, `"!Music"` | absent, or anything but "Music" |
/// | `"!~^Mus"` | absent, or not found by the regex |
/// | `!null`, `"!null"` | present, whatever its value |
/// | `!"null"` | absent, or anything but the string "null" |
///
/// PipeWire 0.3.65 (Debian 12) already has exact, `~` and `null`, but reads a leading `!`
/// as part of the literal; 1.0 added negation. We reject at load time what PipeWire only
/// logs: an invalid regex (PipeWire treats it as "no match").
public struct PropertyPattern: Hashable, Sendable, CustomStringConvertible {
    public enum Test: Hashable, Sendable {
        /// The property is absent.
        case absent
        case equals(String)
        case regex(POSIXRegex)
    }

    public var test: Test
    /// `!`: the result of `test` is inverted.
    public var isNegated: Bool

    public init(_ test: Test, negated: Bool = false) {
        self.test = test
        self.isNegated = negated
    }

    /// Reads a pattern the way `pw_conf_find_match` does: a quoted string is unescaped
    /// once (so `"null"` is a string); after a `!` or `~` modifier the rest is read again
    /// as a token (so `"!null"` means not-absent and `!"null"` means not the string).
    public init(_ value: SPAJSONValue) throws(PatternError) {
        var rest: String
        var reparse: Bool
        switch value.kind {
        case .string(let text):
            rest = text
            reparse = false
        case .bare(let text):
            rest = text
            reparse = true
        case .object, .array:
            throw .notAPattern(value.typeDescription)
        }
        var negated = false
        var isRegex = false
        if rest.hasPrefix("!") {
            negated = true
            rest.removeFirst()
            reparse = true
        }
        if rest.hasPrefix("~") {
            isRegex = true
            rest.removeFirst()
            reparse = true
        }
        if reparse && rest == "null" {
            self.init(.absent, negated: negated)
            return
        }
        if reparse {
            guard let unescaped = SPAJSONReader.unescape(token: rest) else { throw .invalidString(rest) }
            rest = unescaped
        }
        if isRegex {
            do {
                self.init(.regex(try POSIXRegex(rest)), negated: negated)
            } catch {
                throw .invalidRegex(error)
            }
        } else {
            self.init(.equals(rest), negated: negated)
        }
    }

    /// Whether a property with this value (`nil`: absent) satisfies the pattern.
    public func matches(_ value: String?) -> Bool {
        let hit: Bool
        switch test {
        case .absent: hit = value == nil
        case .equals(let expected): hit = value == expected
        case .regex(let regex): hit = value.map(regex.matches) ?? false
        }
        return hit != isNegated
    }

    /// The pattern written back in rules syntax.
    public var description: String {
        let prefix = isNegated ? "!" : ""
        switch test {
        case .absent: return "\(prefix)null"
        case .equals(let text): return "\"\(prefix)\(text)\""
        case .regex(let regex): return "\"\(prefix)~\(regex.pattern)\""
        }
    }
}

/// Why a `matches` value is not a pattern.
public enum PatternError: Error, Hashable, Sendable {
    case notAPattern(String)
    case invalidString(String)
    case invalidRegex(RegexCompileError)

    public var reason: String {
        switch self {
        case .notAPattern(let found): "expected a string, a ~regex or null, found \(found)"
        case .invalidString(let text): "invalid string \(text)"
        case .invalidRegex(let error): "invalid regex '\(error.pattern)': \(error.message)"
        }
    }
}
