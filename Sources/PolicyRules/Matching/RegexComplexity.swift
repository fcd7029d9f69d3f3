/// How large a POSIX extended regular expression grows when glibc compiles it. `regcomp`
/// copies a repeated expression once per repetition it must count (`a{3}` is three copies,
/// `a+` two), and repetitions of repetitions multiply: `a++++…` or `((a{99}){99}){99}` takes
/// gigabytes and minutes to compile. A rules file is read by the running daemon on every edit,
/// so such a pattern is refused with a diagnostic before it reaches `regcomp`.
enum RegexComplexity {
    /// The most copies of literal characters and classes a pattern may grow to; a pattern a
    /// person writes to match names is a few dozen.
    static let limit = 10_000

    /// About how many nodes `regcomp` builds for `pattern` (saturating far above ``limit``).
    static func size(of pattern: String) -> Int {
        let characters = Array(pattern.utf8)
        var index = 0
        // One entry per open group: its size so far, and the size of its last atom (what a
        // quantifier that follows multiplies).
        var groups: [(size: Int, lastAtom: Int)] = [(0, 0)]

        func add(_ atom: Int) {
            groups[groups.count - 1].size = saturating(groups[groups.count - 1].size + atom)
            groups[groups.count - 1].lastAtom = atom
        }
        func multiplyLastAtom(by factor: Int) {
            let last = groups[groups.count - 1].lastAtom
            let grown = saturating(last.multipliedReportingOverflow(by: factor))
            groups[groups.count - 1].size = saturating(groups[groups.count - 1].size - last + grown)
            groups[groups.count - 1].lastAtom = grown
        }

        while index < characters.count {
            let character = characters[index]
            index += 1
            switch character {
            case UInt8(ascii: "\\"):
                index += 1
                add(1)
            case UInt8(ascii: "["):
                index = Self.endOfBracket(characters, from: index)
                add(1)
            case UInt8(ascii: "("):
                groups.append((0, 0))
            case UInt8(ascii: ")") where groups.count > 1:
                let group = groups.removeLast()
                add(max(group.size, 1))
            case UInt8(ascii: "*"), UInt8(ascii: "?"):
                break  // one copy, and a node of their own
            case UInt8(ascii: "+"):
                multiplyLastAtom(by: 2)
            case UInt8(ascii: "{"):
                let (bound, next) = Self.bound(characters, from: index)
                index = next
                multiplyLastAtom(by: max(bound, 1))
            case UInt8(ascii: "|"), UInt8(ascii: "^"), UInt8(ascii: "$"):
                groups[groups.count - 1].lastAtom = 0
            default:
                add(1)
            }
        }
        while groups.count > 1 {
            let group = groups.removeLast()
            add(max(group.size, 1))
        }
        return groups[0].size
    }

    /// Past a bracket expression (`[...]`, `[^]...]`, `[[:alpha:]]`), from just after its `[`.
    private static func endOfBracket(_ characters: [UInt8], from start: Int) -> Int {
        var index = start
        if index < characters.count, characters[index] == UInt8(ascii: "^") { index += 1 }
        if index < characters.count, characters[index] == UInt8(ascii: "]") { index += 1 }
        while index < characters.count {
            if characters[index] == UInt8(ascii: "["), index + 1 < characters.count,
                [UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "=")].contains(characters[index + 1])
            {
                let closing = characters[index + 1]
                index += 2
                while index + 1 < characters.count, !(characters[index] == closing && characters[index + 1] == UInt8(ascii: "]")) {
                    index += 1
                }
                index += 2
                continue
            }
            if characters[index] == UInt8(ascii: "]") { return index + 1 }
            index += 1
        }
        return index
    }

    /// The copies a `{m}`, `{m,}` or `{m,n}` makes (its largest count; `{m,}` is m + 1), and
    /// where the pattern goes on.
    private static func bound(_ characters: [UInt8], from start: Int) -> (Int, Int) {
        var index = start
        var numbers: [Int] = [0]
        var open = false
        while index < characters.count, characters[index] != UInt8(ascii: "}") {
            let character = characters[index]
            if character == UInt8(ascii: ",") {
                numbers.append(0)
                open = true
            } else if character >= UInt8(ascii: "0"), character <= UInt8(ascii: "9") {
                let digit = Int(character - UInt8(ascii: "0"))
                numbers[numbers.count - 1] = saturating(saturating(numbers[numbers.count - 1].multipliedReportingOverflow(by: 10)) + digit)
                open = false
            }
            index += 1
        }
        let largest = numbers.max() ?? 1
        return (open ? saturating(largest + 1) : largest, index + 1)
    }

    private static let ceiling = 1 << 40

    private static func saturating(_ value: Int) -> Int { min(max(value, 0), ceiling) }
    private static func saturating(_ result: (partialValue: Int, overflow: Bool)) -> Int {
        result.overflow ? ceiling : saturating(result.partialValue)
    }
}
