#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SessionPolicy

/// Everything the daemon has changed on the audio server that must not outlive it, written to
/// the state dir on every change, so that after a crash (`kill -9`) the next start undoes it:
/// ducked volumes go back to their base, policy mutes are lifted, a forced quantum or rate is
/// released. Links need no entry: they belong to the daemon's connection and die with it.
/// (MPRIS pauses have their own journal beside it: `MPRISPauseJournal`.) Kept by enforcement
/// for every backend, in the backend's neutral terms.
struct EnforcementJournal: JournalContents {
    static let fileName = "enforcement.json"

    struct StreamEntry: Codable, Equatable {
        /// The stream's identity that is never reused (PipeWire `object.serial`), so a new
        /// stream with a recycled id is never "restored" by mistake.
        var serial: UInt64
        /// The volume to put back, if we changed it.
        var baseVolume: Float?
        /// We muted it (and it was not muted before).
        var mutedByPolicy = false
    }

    /// An input device put at a session's gain.
    struct InputGainEntry: Codable, Equatable {
        /// Its user's volume on the control's scale (what the log says).
        var original: Double
        /// Its user's per-channel volumes as the server keeps them: what is given back.
        var originalLevels: [Double]
        /// What we wrote: given back only while the device still has it (the user's later
        /// volume stays).
        var written: Double
    }

    /// A device switched to one of its choices (a card route, a headset profile) for a
    /// session: the choice it had, given back, and ours (whose the device's choice is now is
    /// ``BorrowedValue``'s rule).
    struct Selection<Value: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
        /// What it had: given back.
        var original: Value
        /// What we selected: given back only while it is still the active one.
        var written: Value
    }

    /// A device's card switched to a session's data source (route indices).
    typealias DataSourceEntry = Selection<UInt32>
    /// A headset switched to a call's profile (`EnumProfile` indices).
    typealias ProfileEntry = Selection<Int>

    /// By stream (``key(of:)``).
    var streams: [String: StreamEntry] = [:]
    /// By device name (``AudioBackend/name(of:)``).
    var inputGains: [String: InputGainEntry]? = nil
    /// By device name (``AudioBackend/name(of:)``).
    var dataSources: [String: DataSourceEntry]? = nil
    /// By headset (`Port.deviceID`, its `device.name`).
    var headsetProfiles: [String: ProfileEntry]? = nil
    /// What we forced into the `settings` metadata (nil: nothing).
    var forcedQuantum: Int?
    var forcedRate: Int?

    var isEmpty: Bool { streams.isEmpty && forcedQuantum == nil && forcedRate == nil && (inputGains ?? [:]).isEmpty && (dataSources ?? [:]).isEmpty
        && (headsetProfiles ?? [:]).isEmpty
    }

    /// `"12"` for a playback stream (as journals always named PipeWire's), `"capture 12"`.
    static func key(of stream: StreamID) -> String {
        stream.direction == .playback ? String(stream.rawValue) : "capture \(stream.rawValue)"
    }

    static func stream(ofKey key: String) -> StreamID? {
        if let id = UInt32(key) { return .playback(id) }
        guard key.hasPrefix("capture "), let id = UInt32(key.dropFirst("capture ".count)) else { return nil }
        return .capture(id)
    }
}

