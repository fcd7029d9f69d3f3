import SessionPolicy

/// Carries out holds: a stream taken off its device (the backend unlinks it, and it freezes)
/// or muted on the policy's behalf (where it cannot be unlinked: beside another session
/// manager, or as the last resort). A policy mute is journalled before it goes out, and only
/// a mute of ours is ever lifted (``BorrowedValue``): a stream its user muted stays muted, and
/// so does one its user unmuted and muted again while we held it.
///
/// Confined to the daemon's loop.
final class HoldEnforcement: @unchecked Sendable {
    private unowned let backend: AudioBackend
    private let journal: ChangeJournal
    /// Our mutes, by stream: the stream's own mute (unmuted) is the user's value.
    private var mutes: [StreamID: BorrowedValue<Bool>] = [:]
    private var undone = false

    init(backend: AudioBackend, journal: ChangeJournal) {
        self.backend = backend
        self.journal = journal
    }

    /// Takes a stream off its device, or puts it back.
    func setHeld(_ held: Bool, _ stream: StreamID) {
        held ? backend.hold(stream) : backend.release(stream)
    }

    /// Mutes a stream on the policy's behalf, or lifts our mute.
    func setMuted(_ muted: Bool, _ stream: StreamID) {
        guard !undone, let mutedNow = backend.isMuted(stream) else { return }
        if muted {
            guard mutes[stream] == nil, !mutedNow else { return }  // ours already, or the user's mute: not ours to lift later
            mutes[stream] = BorrowedValue(users: false, ours: true)
            journal.record(stream, identity: backend.identity(of: stream)) { $0.mutedByPolicy = true }
            backend.writeMute(true, of: stream)
        } else if let mute = mutes.removeValue(forKey: stream) {
            journal.record(stream, identity: backend.identity(of: stream)) { $0.mutedByPolicy = false }
            if mute.mayGiveBack(over: mutedNow) { backend.writeMute(false, of: stream) }
        }
    }

    /// The stream's mute as the server reports it: ours coming back, or its user unmuting it
    /// (then it is theirs from then on, and nothing is lifted later).
    func muteReported(_ muted: Bool?, of stream: StreamID) {
        guard let muted, var mute = mutes[stream] else { return }
        switch mute.reported(muted) {
        case .ours, .usersStill, .usersBeforeOurs:
            mutes[stream] = mute
        case .usersAgain, .usersChange:
            mutes[stream] = nil
            journal.record(stream, identity: backend.identity(of: stream)) { $0.mutedByPolicy = false }
        }
    }

    /// The stream is gone, and our mute with it.
    func forget(_ stream: StreamID) { mutes[stream] = nil }

    /// The server is gone, and our mutes with its streams.
    func forgetAll() { mutes.removeAll() }

    /// The daemon is exiting: undo lifts the mutes; nothing more is muted.
    func stop() { undone = true }
}
