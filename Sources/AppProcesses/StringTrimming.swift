extension StringProtocol {
    /// The text without leading and trailing whitespace (spaces, tabs, newlines), as a String.
    /// FoundationEssentials has no `trimmingCharacters(in:)`; this is all the daemon needs.
    public func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
            let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
