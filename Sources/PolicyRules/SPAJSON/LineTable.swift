/// Byte offset → 1-based line number, for messages that say where a problem is.
struct LineTable: Sendable {
    /// Offsets of every '\n'.
    private let newlines: [Int]

    init(_ bytes: some Collection<UInt8>) {
        var newlines: [Int] = []
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            newlines.append(offset)
        }
        self.newlines = newlines
    }

    /// The line holding `offset` (the number of newlines before it, plus one).
    func line(at offset: Int) -> Int {
        var low = 0
        var high = newlines.count
        while low < high {
            let middle = (low + high) / 2
            if newlines[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low + 1
    }
}
