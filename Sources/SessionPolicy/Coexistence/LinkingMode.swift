/// Who links streams to devices: the daemon, another session manager, or whoever is there.
public enum LinkingMode: String, CaseIterable, Hashable, Sendable {
    /// Link only while no other session manager runs (the default): beside WirePlumber on a
    /// desktop it applies policy on WirePlumber's links; alone, it links as well.
    case auto
    /// Always link, even beside another session manager (both then link the same streams).
    case always
    /// Never link; another session manager does (`--no-linking`).
    case never
}
