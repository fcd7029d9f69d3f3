/// `builtInMicMuted` (reference §5): the user muted the microphone an explicit session records
/// from (the mute key, a headset's switch). The session is interrupted — it waits like any
/// interrupted session, and its audio is held after its grace — and gets `ended` with
/// `shouldResume` when the microphone is back (or it no longer records only from muted ones)
/// and nothing else interrupts it. `overrideMutedMicrophoneInterruption` keeps it active,
/// recording silence. Implicit sessions are left alone: they never asked for iOS's rules, and a
/// muted microphone already records silence.
extension PolicyEngine {
    /// An explicit session that records, only from muted inputs, and did not ask to be spared.
    func recordsFromMutedInput(_ state: SessionState) -> Bool {
        state.kind == .explicit && !state.configuration.effectiveOptions.contains(.overrideMutedMicrophoneInterruption)
            && recordsOnlyMutedInputs(state)
    }

    /// Whether the session records, and every input it records from is muted by its user (the
    /// mute key, a headset's switch): what it records is silence, whatever it asked for.
    public func isInputMuted(for id: SessionID) -> Bool {
        sessions[id].map(recordsOnlyMutedInputs) ?? false
    }

    private func recordsOnlyMutedInputs(_ state: SessionState) -> Bool {
        state.configuration.category.hasInput
            && !state.route.inputs.isEmpty && state.route.inputs.allSatisfy { mutedInputs.contains($0.device) }
    }

    mutating func changeInputMute(_ device: DeviceID, _ muted: Bool) {
        if muted { mutedInputs.insert(device) } else { mutedInputs.remove(device) }
    }

    /// After each event: releases the sessions whose microphone is back, and interrupts the
    /// active ones that now record only from muted inputs (a session already interrupted by
    /// someone else is kept waiting, silently, until its microphone is back too). Costs
    /// nothing while no input is muted and nobody waits for one.
    mutating func updateMicrophoneMuteInterruptions() {
        guard !mutedInputs.isEmpty || !micMuteInterrupted.isEmpty else { return }
        var changed = false
        for id in micMuteInterrupted.sorted() {
            guard let index = contenderIndex(of: id), contenders[index].heldByMutedInput else {
                micMuteInterrupted.remove(id)
                continue
            }
            if let state = sessions[id], !recordsFromMutedInput(state) {
                contenders[index].heldByMutedInput = false
                micMuteInterrupted.remove(id)
                changed = true
            }
        }
        if !mutedInputs.isEmpty && explicitContenders > 0 {
            for index in contenders.indices where contenders[index].isExplicit && !contenders[index].heldByMutedInput {
                let id = contenders[index].id
                guard let state = sessions[id], recordsFromMutedInput(state) else { continue }
                contenders[index].heldByMutedInput = true
                micMuteInterrupted.insert(id)
                if !contenders[index].isWaiting {
                    interrupt(at: index, by: nil, reason: .builtInMicMuted)
                }
                changed = true
            }
        }
        if changed { arbitrate(cause: nil) }
    }
}
