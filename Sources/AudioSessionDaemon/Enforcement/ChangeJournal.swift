#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import SessionPolicy

/// The ``EnforcementJournal`` as enforcement keeps it: in memory, and in the state dir soon
/// after every change. Shared by the components that change the server (gain, holds,
/// hardware) and by undo.
///
/// Confined to the daemon's loop.
final class ChangeJournal: @unchecked Sendable {
    private(set) var contents = EnforcementJournal()
    private let file: JournalFile<EnforcementJournal>
    private let loop: DaemonLoop
    /// A write is queued for the loop's next turn (``saveSoon()``).
    private var savePending = false

    init(directory: URL, loop: DaemonLoop, logger: Logger) {
        file = JournalFile(directory: directory, logger: logger)
        self.loop = loop
    }

    /// What a previous run left in the state dir.
    func readLeftovers() -> EnforcementJournal { file.read() }

    /// Changes a stream's entry; `identity` is the stream's never-reused identity (nothing is
    /// recorded for a stream the backend cannot name so: it is gone).
    func record(_ stream: StreamID, identity: UInt64?, _ change: (inout EnforcementJournal.StreamEntry) -> Void) {
        guard let identity else { return }
        let key = EnforcementJournal.key(of: stream)
        var entry = contents.streams[key] ?? EnforcementJournal.StreamEntry(serial: identity)
        change(&entry)
        let clean = entry.baseVolume == nil && !entry.mutedByPolicy
        let before = contents.streams[key]
        contents.streams[key] = clean ? nil : entry
        if contents.streams[key] != before { saveSoon() }
    }

    func entry(of stream: StreamID) -> EnforcementJournal.StreamEntry? {
        contents.streams[EnforcementJournal.key(of: stream)]
    }

    /// The stream is gone: nothing of it can be undone any more.
    func forget(_ stream: StreamID) {
        if contents.streams.removeValue(forKey: EnforcementJournal.key(of: stream)) != nil { saveSoon() }
    }

    /// What the server is forced to now.
    func recordHardware(quantum: Int?, sampleRate: Int?) {
        guard contents.forcedQuantum != quantum || contents.forcedRate != sampleRate else { return }
        contents.forcedQuantum = quantum
        contents.forcedRate = sampleRate
        saveSoon()
    }

    /// An input device's gain, by its name (nil: nothing of ours on it any more).
    func recordInputGain(_ entry: EnforcementJournal.InputGainEntry?, device name: String) {
        record(entry, device: name, in: \.inputGains)
    }

    /// A device's data source, by its name (nil: nothing of ours on it any more).
    func recordDataSource(_ entry: EnforcementJournal.DataSourceEntry?, device name: String) {
        record(entry, device: name, in: \.dataSources)
    }

    /// A headset's profile, by its name (nil: nothing of ours on it any more).
    func recordHeadsetProfile(_ entry: EnforcementJournal.ProfileEntry?, device name: String) {
        record(entry, device: name, in: \.headsetProfiles)
    }

    private func record<Entry: Equatable>(
        _ entry: Entry?, device name: String, in entries: WritableKeyPath<EnforcementJournal, [String: Entry]?>
    ) {
        var byDevice = contents[keyPath: entries] ?? [:]
        guard byDevice[name] != entry else { return }
        byDevice[name] = entry
        contents[keyPath: entries] = byDevice.isEmpty ? nil : byDevice
        saveSoon()
    }

    /// Nothing is changed any more (undone, or the server is gone with our changes).
    func clear() {
        contents = EnforcementJournal()
        saveNow()
    }

    /// Everything but the devices' volumes and routes (``Enforcement/lost()``).
    func clearKeepingDeviceSettings() {
        var kept = EnforcementJournal()
        kept.inputGains = contents.inputGains
        kept.dataSources = contents.dataSources
        kept.headsetProfiles = contents.headsetProfiles
        contents = kept
        saveNow()
    }

    /// The devices' entries were undone (or found changed by their user).
    func forgetDeviceSettings() {
        contents.inputGains = nil
        contents.dataSources = nil
        contents.headsetProfiles = nil
    }

    /// Writes the journal once the step being carried out is done (``saveIfPending()``): a duck
    /// of a hundred streams changes a hundred entries in one go, and writing the file for each
    /// (the whole journal every time) held a duck's first step back ~30 ms. The step's end comes
    /// before the loop sends anything to the server, so a change is on disk before the server
    /// sees it: a SIGKILL can never leave a mute or a duck the journal does not know. A change
    /// made outside a step is written in the loop's next turn.
    private func saveSoon() {
        guard !savePending else { return }
        savePending = true
        loop.performLater { [weak self] in self?.saveIfPending() }
    }

    /// Writes the journal if a change is waiting.
    func saveIfPending() {
        if savePending { saveNow() }
    }

    func saveNow() {
        savePending = false
        file.write(contents)
    }
}
