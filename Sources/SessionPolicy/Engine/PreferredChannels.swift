/// `setPreferredInputNumberOfChannels` / `setPreferredOutputNumberOfChannels` (reference §7).
///
/// As on iOS, only an active session in a category with that direction may ask, and for no more
/// than its route's devices take (`maximum…NumberOfChannels`). On the desktop every stream gets
/// the channels it opens, converted by the server, so the preference is kept and reported but
/// the device's own count is what `…NumberOfChannels` keeps saying: a preference is never
/// reported as applied when it was not.
extension PolicyEngine {
    mutating func setPreferredChannels(_ id: SessionID, _ direction: PortDirection, _ count: Int?) {
        guard existing(id), let state = sessions[id] else { return }
        let category = state.configuration.category
        guard direction == .input ? category.hasInput : category.hasOutput else {
            emit(.failed(id, .incompatibleCategory))
            return
        }
        guard state.activity == .active else {
            emit(.failed(id, .sessionNotActive))
            return
        }
        if let count {
            let ports = direction == .input ? state.route.inputs : state.route.outputs
            guard count >= 1, count <= ports.map(\.channels).max() ?? 0 else {
                emit(.failed(id, .badParam))
                return
            }
        }
        update(id) { state in
            if direction == .input { state.preferredInputChannels = count } else { state.preferredOutputChannels = count }
        }
    }
}
