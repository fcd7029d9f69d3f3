import CPipeWire

/// Requests that go out before anything else is handled.
///
/// libpipewire writes a connection's requests only after it has handled every message it has
/// read (`on_remote_data`: the flush follows the whole dispatch), and keeps reading while the
/// socket has more. A request made in one event's callback thus waits for the events behind it.
/// Pausing the core stops that dispatch after the current callback, so the flush comes at
/// once; the loop's next turn resumes it, and the messages already read are handled then,
/// in order, before anything new.
extension GraphSession {
    /// Has what was requested so far written as soon as the current callback returns (a no-op
    /// when already asked this turn, or without a connection).
    func sendAhead() {
        guard let core, pausedForSending == nil, pw_core_set_paused(core, true) >= 0 else { return }
        pausedForSending = core
        // Behind what this turn leaves for the next (the rest of a burst's work, queued once
        // the callback has returned): a round-trip's reply read on resuming then finds all of it.
        loopThread.enqueue { [loopThread] in loopThread.enqueue { [weak self] in self?.resumeAfterSending() } }
    }

    private func resumeAfterSending() {
        guard let paused = pausedForSending else { return }  // torn down meanwhile
        pausedForSending = nil
        _ = pw_core_set_paused(paused, false)  // handles the messages read before the pause
    }
}
