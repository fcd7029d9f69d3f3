#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A compiled POSIX extended regular expression, searched (not anchored), exactly as
/// PipeWire compiles `~` patterns: `regcomp(REG_EXTENDED | REG_NOSUB)` then `regexec`.
/// Using the same engine means a pattern matches the same names here as in pipewire.conf.
///
/// `@unchecked Sendable`: the compiled `regex_t` is never mutated after `init`, and POSIX
/// makes `regexec` on a compiled expression safe from several threads.
public final class POSIXRegex: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written (after the `~`).
    public let pattern: String
    private let compiled: UnsafeMutablePointer<regex_t>

    /// Compiles `pattern`; throws the message `regerror` gives for an invalid one.
    public init(_ pattern: String) throws(RegexCompileError) {
        let size = RegexComplexity.size(of: pattern)
        guard size <= RegexComplexity.limit else {
            throw RegexCompileError(
                pattern: pattern,
                message: "too complex: its repetitions would make about \(size) copies (at most \(RegexComplexity.limit)); repeat a repetition less")
        }
        // Compile before initialising any stored property: a class whose init throws
        // after full initialisation runs deinit, which would free this twice.
        let candidate = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
        let status = regcomp(candidate, pattern, REG_EXTENDED | REG_NOSUB)
        if status != 0 {
            var message = [CChar](repeating: 0, count: 256)
            regerror(status, candidate, &message, message.count)
            candidate.deallocate()
            let text = String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw RegexCompileError(pattern: pattern, message: text)
        }
        self.pattern = pattern
        self.compiled = candidate
    }

    deinit {
        regfree(compiled)
        compiled.deallocate()
    }

    /// Whether the expression occurs anywhere in `text`.
    public func matches(_ text: String) -> Bool {
        regexec(compiled, text, 0, nil, 0) == 0
    }

    public var description: String { pattern }

    public static func == (lhs: POSIXRegex, rhs: POSIXRegex) -> Bool { lhs.pattern == rhs.pattern }
    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }
}

/// `regcomp` refused a pattern.
public struct RegexCompileError: Error, Hashable, Sendable {
    public var pattern: String
    /// `regerror`'s text, e.g. "Unmatched ( or \\(".
    public var message: String
}
