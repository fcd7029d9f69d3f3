extension PolicyEngine {
    /// `promptStyle` for a session (a navigation or workout app's spoken prompts), from what
    /// the *other* sessions do now: `none` while one of them records (its capture runs, and it
    /// is not a call), `short` while one is in a call, else `normal`.
    public func promptStyle(for id: SessionID) -> PromptStyle {
        var call = false
        for contender in contenders where contender.isEffective && contender.id != id {
            guard let state = sessions[contender.id] else { continue }
            if Self.isCall(state) {
                call = true
            } else if state.configuration.category.hasInput && (state.kind == .explicit || state.hasRunningCapture) {
                return .none
            }
        }
        return call ? .short : .normal
    }

    /// A call: the communication class, or a chat mode (voice, video, game chat).
    static func isCall(_ state: SessionState) -> Bool {
        state.priorityClass.name == PriorityClass.communication.name
            || [Mode.voiceChat, .videoChat, .gameChat].contains(state.configuration.effectiveMode)
    }
}
