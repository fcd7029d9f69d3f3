/// Streams: a running stream activates an implicit session; paused-by-user and stopped
/// streams deactivate it.
extension PolicyEngine {

    mutating func startStream(_ id: SessionID, _ stream: StreamID, _ direction: StreamDirection) {
        guard existing(id), var state = sessions[id] else { return }
        if let owner = streamOwners[stream], owner != id {
            // The node id moved to another session (reused id): forget the old owner's stream.
            dropStream(stream, from: owner)
            state = sessions[id] ?? state
        }
        streamOwners[stream] = id
        let hadStreams = !state.streams.isEmpty
        if let index = state.streams.firstIndex(where: { $0.id == stream }) {
            state.streams[index].pausedByUser = false
            state.streams[index].direction = direction
        } else {
            state.streams.append(StreamState(id: stream, direction: direction, pausedByUser: false))
        }
        sessions[id] = state

        if state.kind == .explicit {
            if direction == .playback && !state.configuration.category.hasOutput { emit(.failed(id, .cannotStartPlaying)) }
            if direction == .capture && !state.configuration.category.hasInput { emit(.failed(id, .cannotStartRecording)) }
        }
        if !hadStreams { emit(.link(id, state.route)) }
        updateCaptureSilencing(of: id)

        switch state.activity {
        case .active:
            refreshContender(id)
        case .interrupted:
            // Played again while held (its user pressed play): hold this stream too.
            sessions[id]?.userPausedWhileInterrupted = false
            refreshContender(id)
            emit(.interruptionBegan(id, reason: .default, method: state.method(preferring: configuration.interruptionMethods)))
        case .inactive:
            guard !isGraphLost else { return }
            let audience = (state.isNonMixable ? 1 : 0) | (state.isSpoken ? 2 : 0)
            if let interrupter = interrupter(forPriority: state.priorityClass.priority, audience: audience) {
                // Delayed focus: held now, resumed when the higher session ends.
                enterContention(id, waiting: true, blocker: interrupter)
                emit(.interruptionBegan(id, reason: .default, method: state.method(preferring: configuration.interruptionMethods)))
            } else {
                enterContention(id, waiting: false)
                emit(.activated(id))
                arbitrate(cause: id)
            }
        }
    }

    mutating func pauseStream(_ stream: StreamID) {
        guard let id = streamOwners[stream], var state = sessions[id],
              let index = state.streams.firstIndex(where: { $0.id == stream }) else { return }
        state.streams[index].pausedByUser = true
        if state.activity == .interrupted { state.userPausedWhileInterrupted = true }
        sessions[id] = state
        afterStreamChange(id)
    }

    mutating func stopStream(_ stream: StreamID) {
        guard let id = streamOwners.removeValue(forKey: stream) else { return }
        dropStream(stream, from: id)
        afterStreamChange(id)
    }

    mutating func dropStream(_ stream: StreamID, from id: SessionID) {
        guard var state = sessions[id] else { return }
        state.streams.removeAll { $0.id == stream }
        if state.activity == .interrupted && !state.streams.isEmpty && !state.hasRunningStreams {
            state.userPausedWhileInterrupted = true
        }
        sessions[id] = state
    }

    /// An implicit session plays while one of its streams runs.
    mutating func afterStreamChange(_ id: SessionID) {
        guard let state = sessions[id] else { return }
        updateCaptureSilencing(of: id)
        guard state.kind == .implicit else {
            refreshContender(id)
            return
        }
        switch state.activity {
        case .active where !state.hasRunningStreams:
            leaveContention(id, resumeHint: true)
            emit(.deactivated(id))
            arbitrate(cause: nil)
        case .interrupted where state.streams.isEmpty:
            // Gone while held: nothing to resume, no ended.
            leaveContention(id, resumeHint: true, notify: false)
            emit(.deactivated(id))
            arbitrate(cause: nil)
        case .interrupted:
            refreshContender(id)
            if state.userPausedWhileInterrupted, let index = contenderIndex(of: id) { contenders[index].userPaused = true }
            arbitrate(cause: nil)
        default:
            refreshContender(id)
        }
    }
}
