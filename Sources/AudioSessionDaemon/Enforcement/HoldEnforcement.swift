import SessionPolicy

/// Carries out holds: a stream taken off its device (the backend unlinks it, and it freezes)
/// or muted on the policy's behalf (where it cannot be unlinked: beside another session
/// manager, or as the last resort). A policy mute is journalled before it goes out, and only
/// a mute of ours is ever lifted: a stream its user muted stays muted.
///
/// Confined to the daemon's loop.
final class HoldEnforcement: @unchecked Sendable {
    private unowned let backend: AudioBackend
    private let journal: ChangeJournal
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
            guard !mutedNow else { return }  // the user's mute: not ours to lift later
            journal.record(stream, identity: backend.identity(of: stream)) { $0.mutedByPolicy = true }
            backend.writeMute(true, of: stream)
        } else if journal.entry(of: stream)?.mutedByPolicy == true {
            journal.record(stream, identity: backend.identity(of: stream)) { $0.mutedByPolicy = false }
            backend.writeMute(false, of: stream)
        }
    }

    /// The daemon is exiting: undo lifts the mutes; nothing more is muted.
    func stop() { undone = true }
}
