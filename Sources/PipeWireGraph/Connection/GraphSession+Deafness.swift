import PipeWireShim

/// A connection the server has stopped reading is taken for a lost one.
///
/// PipeWire can stop reading one client's socket for good while still sending it events
/// (docs/upstream-bugs.md: a bind of an exported metadata the exporter withdrew). Nothing on
/// the socket says so: only that round trips go unanswered. So while a round trip waits, a
/// timer waits too (armed when the first is asked, disarmed when the last is answered: an idle
/// daemon wakes for nothing), and once the oldest has waited `unansweredRoundTripLimit` the
/// connection is dropped and made again, as after a server restart: everything is read anew,
/// and what the daemon holds is carried out again.
extension GraphSession {
    /// Arms the timer for when the oldest round trip waiting reaches the limit.
    func watchForDeafness() {
        guard let deafnessTimer, let waited = roundTrips.longestWait else { return }
        let limit = configuration.unansweredRoundTripLimit.timerNanoseconds
        _ = pws_loop_arm_timer(loopThread.loop, deafnessTimer, limit > waited ? limit - waited : 0)
    }

    /// Nothing waits any more (every round trip answered, or the connection gone).
    func stopWatchingForDeafness() {
        guard let deafnessTimer else { return }
        _ = pws_loop_disarm_timer(loopThread.loop, deafnessTimer)
    }

    /// A bind is answered by the object's info, which no round trip waits for: a connection the
    /// server stopped reading went on binding each new stream and never learned what it was,
    /// with nothing armed to notice (a stream started after WirePlumber quit, never linked:
    /// the daemon had bound WirePlumber's metadata as it went). So a round trip follows binds,
    /// one at a time (binds made while it waits get the next), and the watch covers them.
    func coverBinds() {
        if bindCover.bindSent() { askBindCover() }
    }

    private func askBindCover() {
        sync { [weak self] answered in
            guard let self, answered, self.bindCover.answered() else { return }
            self.askBindCover()
        }
    }

    /// The timer fired: the oldest round trip still waiting is either over the limit (the
    /// connection is lost) or younger than the one it was armed for (armed again for it).
    func checkForDeafness() {
        guard let waited = roundTrips.longestWait else { return }
        let limit = configuration.unansweredRoundTripLimit
        if waited >= limit.timerNanoseconds {
            connectionLost(reason: "PipeWire has answered no round trip for \(limit): it no longer reads this connection")
        } else {
            watchForDeafness()
        }
    }
}

/// The round trip that follows binds: one at a time, and one more for the binds sent while it
/// waited (a round trip answers only for what was sent before it).
struct BindCover: Equatable {
    private var waiting = false
    private var sentSince = false

    /// A bind went out: true when a round trip is to be asked now.
    mutating func bindSent() -> Bool {
        if waiting {
            sentSince = true
            return false
        }
        waiting = true
        return true
    }

    /// The round trip was answered: true when binds went out after it was asked, and another
    /// is to be asked for them.
    mutating func answered() -> Bool {
        waiting = sentSince
        sentSince = false
        return waiting
    }
}
