import SessionPolicy

/// Carries out holds: a stream taken off its device (the backend unlinks it, and it freezes)
/// or muted on the policy's behalf (where it cannot be unlinked: beside another session
/// manager, or as the last resort). A policy mute is journalled before it goes out, and only
/// a mute of ours is ever lifted (``BorrowedValue``): a stream its user muted stays muted, and
/// so does one its user unmuted and muted again while we held it.
final class HoldEnforcement: Sendable {
    private unowned let backend: AudioBackend
    private let journal: ChangeJournal
    private struct State {
        /// Our mutes, by stream: the stream's own mute (unmuted) is the user's value.
        var mutes: [StreamID: BorrowedValue<Bool>] = [:]
        var undone = false
    }

    private let state: LoopBound<State>

    init(backend: AudioBackend, loop: DaemonLoop, journal: ChangeJournal) {
        self.backend = backend
        self.journal = journal
        state = LoopBound(State(), on: loop)
    }

    /// Takes a stream off its device, or puts it back.
    func setHeld(_ held: Bool, _ stream: StreamID) {
        held ? backend.hold(stream) : backend.release(stream)
    }

    /// Mutes a stream on the policy's behalf, or lifts our mute.
    func setMuted(_ muted: Bool, _ stream: StreamID) {
        guard !state.undone, let mutedNow = backend.isMuted(stream) else { return }
        if muted {
            guard state.mutes[stream] == nil, !mutedNow else { return }  // ours already, or the user's mute: not ours to lift later
            state.mutes[stream] = BorrowedValue(users: false, ours: true)
            journal.record(stream, identity: backend.identity(of: stream)) { $0.mutedByPolicy = true }
            backend.writeMute(true, of: stream)
        } else if let mute = state.mutes.removeValue(forKey: stream) {
            journal.record(stream, identity: backend.identity(of: stream)) { $0.mutedByPolicy = false }
            if mute.mayGiveBack(over: mutedNow) { backend.writeMute(false, of: stream) }
        }
    }

    /// The stream's mute as the server reports it: ours coming back, or its user unmuting it
    /// (then it is theirs from then on, and nothing is lifted later).
    func muteReported(_ muted: Bool?, of stream: StreamID) {
        guard let muted, var mute = state.mutes[stream] else { return }
        switch mute.reported(muted) {
        case .ours, .usersStill, .usersBeforeOurs:
            state.mutes[stream] = mute
        case .usersAgain, .usersChange:
            state.mutes[stream] = nil
            journal.record(stream, identity: backend.identity(of: stream)) { $0.mutedByPolicy = false }
        }
    }

    /// The stream is gone, and our mute with it.
    func forget(_ stream: StreamID) { state.mutes[stream] = nil }

    /// The server is gone, and our mutes with its streams.
    func forgetAll() { state.mutes.removeAll() }

    /// The daemon is exiting: undo lifts the mutes; nothing more is muted.
    func stop() { state.undone = true }
}
