/// Streams: a running stream activates an implicit session; paused-by-user and stopped
/// streams deactivate it.
extension PolicyEngine {

    mutating func startStream(_ id: SessionID, _ stream: StreamID) {
        let direction = stream.direction
        guard existing(id) else { return }
        if let owner = streamOwners[stream], owner != id {
            // The node id moved to another session (a reused id): forget the old owner's stream.
            dropStream(stream, from: owner)
            afterStreamChange(owner)
        }
        streamOwners[stream] = id
        guard let (hadStreams, state) = update(id, { state -> (Bool, SessionState) in
            let hadStreams = !state.streams.isEmpty
            if let index = state.streams.firstIndex(where: { $0.id == stream }) {
                state.streams[index].pausedByUser = false
            } else {
                state.streams.append(StreamState(id: stream, pausedByUser: false))
            }
            if state.activity == .interrupted {
                // Played again while held (its user pressed play): hold it again, and it is
                // no longer "paused by its user".
                state.userPausedWhileInterrupted = false
            }
            return (hadStreams, state)
        }) else { return }

        if state.kind == .explicit {
            if direction == .playback && !state.configuration.category.hasOutput { emit(.failed(id, .cannotStartPlaying)) }
            if direction == .capture && !state.configuration.category.hasInput { emit(.failed(id, .cannotStartRecording)) }
        }
        if !hadStreams { emit(.link(id, state.route)) }
        if direction == .capture { updateCaptureSilencing(of: id) }

        switch state.activity {
        case .active:
            if let index = contenderIndex(of: id) {
                contenders[index].resumesToPlay = resumesToPlay(state)
                // A recorder that starts to play is a recorder no more (a call that opened its
                // microphone first): what is above may hold it now.
                let spared = isSpared(state)
                if contenders[index].isSpared != spared {
                    contenders[index].isSpared = spared
                    arbitrate(cause: id)
                }
            }
        case .interrupted:
            refreshContender(id)
            if isSpared(state) {
                // It became a recorder (its streams all capture now): nothing holds it.
                arbitrate(cause: id)
            } else {
                emit(.interruptionBegan(id, reason: .default, method: state.interruptionMethod))
            }
        case .inactive:
            guard !isGraphLost else { return }
            let arrival = arrival(priority: state.priorityClass.priority, audience: state.audience, spared: isSpared(state))
            if let interrupter = arrival.interrupter {
                // Delayed focus: held now, resumed when the higher session ends.
                enterContention(id, waiting: true, blocker: interrupter)
                emit(.interruptionBegan(id, reason: .default, method: state.interruptionMethod))
            } else if state.kind == .implicit {
                activatePlaying(id, arrival: arrival)
            } else {
                enterContention(id, waiting: false)
                emit(.activated(id))
                arbitrate(cause: id)
            }
        }
    }

    mutating func pauseStream(_ stream: StreamID) {
        guard let id = streamOwners[stream] else { return }
        let found = update(id) { state -> Bool in
            guard let index = state.streams.firstIndex(where: { $0.id == stream }) else { return false }
            state.streams[index].pausedByUser = true
            if state.activity == .interrupted { state.userPausedWhileInterrupted = true }
            return true
        }
        if found == true { afterStreamChange(id) }
    }

    mutating func stopStream(_ stream: StreamID) {
        guard let id = streamOwners.removeValue(forKey: stream) else { return }
        dropStream(stream, from: id)
        afterStreamChange(id)
    }

    mutating func dropStream(_ stream: StreamID, from id: SessionID) {
        update(id) { state in
            state.streams.removeAll { $0.id == stream }
            if state.activity == .interrupted && !state.streams.isEmpty && !state.hasRunningStreams {
                state.userPausedWhileInterrupted = true
            }
        }
    }

    /// An implicit session plays while one of its streams runs.
    mutating func afterStreamChange(_ id: SessionID) {
        guard let position = sessions.index(forKey: id) else { return }
        let kind = sessions.values[position].kind
        let activity = sessions.values[position].activity
        let running = sessions.values[position].hasRunningStreams
        let empty = sessions.values[position].streams.isEmpty
        let captureSilenced = sessions.values[position].captureSilenced
        if captureSilenced || sessions.values[position].hasRunningCapture { updateCaptureSilencing(of: id) }
        guard kind == .implicit else {
            refreshJudgingSpared(id)
            return
        }
        switch activity {
        case .active where !running:
            let left = leaveContention(id, resumeHint: true)
            emit(.deactivated(id))
            if let left, left.isEffective, changesNobody(left) { return }
            arbitrate(cause: nil)
        case .interrupted where empty:
            // Gone while held: nothing to resume, no ended.
            leaveContention(id, resumeHint: true, notify: false)
            emit(.deactivated(id))
            arbitrate(cause: nil)
        case .interrupted:
            refreshContender(id)
            arbitrate(cause: nil)
        default:
            refreshJudgingSpared(id)
        }
    }

    /// Re-reads a contender after its streams or its opening changed; one that is spared now
    /// and was not, or the reverse (a recorder, ``PolicyConfiguration/sparesRecorders``; an app
    /// opening its streams, ``PolicyConfiguration/sparesOpeningApps``), is judged again.
    mutating func refreshJudgingSpared(_ id: SessionID) {
        let wasSpared = contenderIndex(of: id).map { contenders[$0].isSpared }
        refreshContender(id)
        if let wasSpared, let index = contenderIndex(of: id), contenders[index].isSpared != wasSpared { arbitrate(cause: id) }
    }
}
