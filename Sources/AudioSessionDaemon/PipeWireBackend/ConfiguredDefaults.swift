/// The user's chosen default devices (`default.configured.audio.sink` / `.source`, set by
/// `pactl set-default-sink`, `wpctl set-default` or a mixer), kept in the state dir: while the
/// daemon provides the `default` metadata, its values live in the daemon, and a restart of the
/// daemon or of PipeWire would otherwise forget them (WirePlumber keeps them the same way).
struct ConfiguredDefaults: JournalContents {
    static let fileName = "configured-defaults.json"

    /// The metadata's raw values (`{"name":"…"}`), by key.
    var values: [String: String] = [:]

    var isEmpty: Bool { values.isEmpty }
}
