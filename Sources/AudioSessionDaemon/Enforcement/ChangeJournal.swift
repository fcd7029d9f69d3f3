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
final class ChangeJournal: Sendable {
    private struct State {
        var contents = EnforcementJournal()
        /// A write is queued for the loop's next turn (``saveSoon()``).
        var savePending = false
    }

    private let state: LoopBound<State>

    var contents: EnforcementJournal { state.contents }
    private let file: JournalFile<EnforcementJournal>
    private let loop: DaemonLoop

    init(directory: URL, loop: DaemonLoop, logger: Logger) {
        file = JournalFile(directory: directory, logger: logger)
        self.loop = loop
        state = LoopBound(State(), on: loop)
    }

    /// What a previous run left in the state dir.
    func readLeftovers() -> EnforcementJournal { file.read() }

    /// Changes a stream's entry; `identity` is the stream's never-reused identity (nothing is
    /// recorded for a stream the backend cannot name so: it is gone).
    func record(_ stream: StreamID, identity: UInt64?, _ change: (inout EnforcementJournal.StreamEntry) -> Void) {
        guard let identity else { return }
        let key = EnforcementJournal.key(of: stream)
        var entry = state.contents.streams[key] ?? EnforcementJournal.StreamEntry(serial: identity)
        change(&entry)
        let clean = entry.baseVolume == nil && !entry.mutedByPolicy
        let before = state.contents.streams[key]
        state.contents.streams[key] = clean ? nil : entry
        if state.contents.streams[key] != before { saveSoon() }
    }

    func entry(of stream: StreamID) -> EnforcementJournal.StreamEntry? {
        state.contents.streams[EnforcementJournal.key(of: stream)]
    }

    /// The stream is gone: nothing of it can be undone any more.
    func forget(_ stream: StreamID) {
        if state.contents.streams.removeValue(forKey: EnforcementJournal.key(of: stream)) != nil { saveSoon() }
    }

    /// What the server is forced to now.
    func recordHardware(quantum: Int?, sampleRate: Int?) {
        guard state.contents.forcedQuantum != quantum || state.contents.forcedRate != sampleRate else { return }
        state.contents.forcedQuantum = quantum
        state.contents.forcedRate = sampleRate
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
        var byDevice = state.contents[keyPath: entries] ?? [:]
        guard byDevice[name] != entry else { return }
        byDevice[name] = entry
        state.contents[keyPath: entries] = byDevice.isEmpty ? nil : byDevice
        saveSoon()
    }

    /// Nothing is changed any more (undone, or the server is gone with our changes).
    func clear() {
        state.contents = EnforcementJournal()
        saveNow()
    }

    /// Everything but the devices' volumes and routes (``Enforcement/lost()``).
    func clearKeepingDeviceSettings() {
        var kept = EnforcementJournal()
        kept.inputGains = state.contents.inputGains
        kept.dataSources = state.contents.dataSources
        kept.headsetProfiles = state.contents.headsetProfiles
        state.contents = kept
        saveNow()
    }

    /// The devices' entries were undone (or found changed by their user).
    func forgetDeviceSettings() {
        state.contents.inputGains = nil
        state.contents.dataSources = nil
        state.contents.headsetProfiles = nil
    }

    /// Writes the journal once the step being carried out is done (``saveIfPending()``): a duck
    /// of a hundred streams changes a hundred entries in one go, and writing the file for each
    /// (the whole journal every time) held a duck's first step back ~30 ms. The step's end comes
    /// before the loop sends anything to the server, so a change is on disk before the server
    /// sees it: a SIGKILL can never leave a mute or a duck the journal does not know. A change
    /// made outside a step is written in the loop's next turn.
    private func saveSoon() {
        guard !state.savePending else { return }
        state.savePending = true
        loop.performLater { [weak self] in self?.saveIfPending() }
    }

    /// Writes the journal if a change is waiting.
    func saveIfPending() {
        if state.savePending { saveNow() }
    }

    func saveNow() {
        state.savePending = false
        file.write(state.contents)
    }
}
