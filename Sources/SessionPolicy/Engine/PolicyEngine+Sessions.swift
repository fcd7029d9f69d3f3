/// Session lifecycle and the session API (category, activation, preferences).
extension PolicyEngine {

    mutating func createSession(_ id: SessionID, _ descriptor: SessionDescriptor) {
        guard sessions[id] == nil else {
            emit(.failed(id, .badParam))
            return
        }
        let configuration: SessionConfiguration
        do {
            configuration = try descriptor.classification.validated()
        } catch {
            emit(.failed(id, error))
            configuration = .default
        }
        let key = appKey(for: descriptor.app)
        var state = SessionState(
            id: id, kind: descriptor.kind, app: descriptor.app, label: descriptor.label, appKey: key, configuration: configuration,
            priorityClass: descriptor.classification.priorityClass,
            interaction: descriptor.classification.effectiveInteraction, capabilities: descriptor.capabilities)
        state.route = routeSelector().route(for: routeRequest(state))
        state.interruptionMethod = state.method(preferring: self.configuration.interruptionMethods)
        state.recordPermission = permissions[descriptor.app] ?? .undetermined
        state.isOpening = opens(descriptor)
        sessions[id] = state
        sessionOrder.insert(id, at: sessionOrder.partitioningIndex { $0 >= id })
        appSessions[descriptor.app, default: []].insert(id)
        updateSilencing(of: id)
    }

    mutating func removeSession(_ id: SessionID) {
        guard existing(id), let state = sessions[id] else { return }
        leaveContention(id, resumeHint: state.kind == .implicit, notify: false)
        for stream in state.streams { streamOwners[stream.id] = nil }
        sessions[id] = nil
        let index = sessionOrder.partitioningIndex { $0 >= id }
        if index < sessionOrder.count, sessionOrder[index] == id { sessionOrder.remove(at: index) }
        appSessions[state.app]?.remove(id)
        systemAlertSessions.remove(id)
        arbitrate(cause: nil)
    }

    mutating func setCategory(_ id: SessionID, _ category: Category, _ mode: Mode, _ options: CategoryOptions) {
        guard existing(id), var state = sessions[id] else { return }
        let configuration: SessionConfiguration
        do {
            configuration = try SessionConfiguration(category: category, mode: mode, options: options)
        } catch {
            emit(.failed(id, error))
            return
        }
        state.configuration = configuration
        state.outputOverride = .none
        if !category.hasInput { state.preferredInputUID = nil }
        sessions[id] = state
        applyConfigurationChange(id, routeReason: .categoryChange)
    }

    mutating func reclassify(_ id: SessionID, _ classification: Classification) {
        guard existing(id), var state = sessions[id] else { return }
        let configuration: SessionConfiguration
        do {
            configuration = try classification.validated()
        } catch {
            emit(.failed(id, error))
            return
        }
        let oldPriority = state.priorityClass.priority
        let categoryChanged = configuration != state.configuration
        if state.activity != .inactive, let index = contenderIndex(priority: oldPriority, serial: state.serial) {
            var contender = contenders.remove(at: index)
            contender.priority = classification.priorityClass.priority
            contenders.insert(contender, at: insertionIndex(priority: contender.priority, serial: contender.serial))
        }
        state.configuration = configuration
        state.priorityClass = classification.priorityClass
        state.interaction = classification.effectiveInteraction
        if categoryChanged { state.outputOverride = .none }
        // What it does or a late rule has told what it is: it is judged as that from now on.
        if classification != self.configuration.defaultClassification { state.isOpening = false }
        sessions[id] = state
        applyConfigurationChange(id, routeReason: categoryChanged ? .categoryChange : nil)
    }

    /// Whether a new session is an app still opening its streams: an implicit one the rules
    /// say nothing about, where the configuration spares those.
    func opens(_ descriptor: SessionDescriptor) -> Bool {
        configuration.sparesOpeningApps && descriptor.kind == .implicit
            && descriptor.classification == configuration.defaultClassification
    }

    /// Its opening window passed: from now on it is judged like any other session.
    mutating func endOpening(_ id: SessionID) {
        guard sessions[id]?.isOpening == true else { return }
        sessions[id]?.isOpening = false
        refreshJudgingSpared(id)
    }

    /// After category / class changes: effects, silencing, route, arbitration.
    mutating func applyConfigurationChange(_ id: SessionID, routeReason: RouteChangeReason?) {
        refreshContender(id)
        updateSilencing(of: id)
        updateCaptureSilencing(of: id)
        if let routeReason, let state = sessions[id] {
            let previous = state.route
            let route = routeSelector().route(for: routeRequest(state))
            sessions[id]?.route = route
            if !state.streams.isEmpty && route != previous { emit(.link(id, route)) }
            if state.activity == .active {
                emit(.routeChanged(id, reason: route.isEmpty == false || !needsRoute(state) ? routeReason : .noSuitableRouteForCategory, previous: previous))
            }
        }
        arbitrate(cause: id)
    }

    /// Deactivating it now would fail with `isBusy`: it is active and one of its streams runs.
    public func isBusy(_ id: SessionID) -> Bool {
        guard let state = sessions[id] else { return false }
        return state.kind == .explicit && state.activity == .active && state.hasRunningStreams
    }

    mutating func setActive(_ id: SessionID, _ active: Bool, _ options: SetActiveOptions) {
        guard existing(id), let state = sessions[id] else { return }
        if active {
            guard !isGraphLost else {
                emit(.failed(id, .mediaServicesFailed))
                return
            }
            if state.activity == .active {
                emit(.activated(id))
                return
            }
            if interrupter(forPriority: state.priorityClass.priority, audience: state.audience, spared: isSpared(state)) != nil {
                emit(.failed(id, .insufficientPriority))
                return
            }
            if screenLocked && wouldInterruptAnotherApp(state) {
                emit(.failed(id, .cannotInterruptOthers))
                return
            }
            if state.activity == .interrupted {
                // Reactivating during (or after) an interruption: no ended will follow.
                leaveContention(id, resumeHint: false, notify: false)
            }
            enterContention(id, waiting: false)
            emit(.activated(id))
            arbitrate(cause: id)
        } else {
            // AVAudioSession refuses to deactivate a session whose audio still runs (isBusy):
            // its app must stop (or pause) its streams first. An interrupted session's audio is
            // already stopped; a stream its user paused does not count.
            if isBusy(id) {
                emit(.failed(id, .isBusy))
                return
            }
            let notify = options.contains(.notifyOthersOnDeactivation)
            if state.activity != .inactive {
                leaveContention(id, resumeHint: notify)
            }
            emit(.deactivated(id))
            arbitrate(cause: nil)
        }
    }

    /// `cannotInterruptOthers`: on iOS only a mixable session may activate from the background.
    /// The desktop's background is the locked screen: nobody is there to have asked for it, so
    /// a non-mixable media session may not cut off another app's audio then (calls, alarms and
    /// other classes above media still may).
    func wouldInterruptAnotherApp(_ state: SessionState) -> Bool {
        guard state.kind == .explicit, state.isNonMixable, state.priorityClass.priority <= PriorityClass.media.priority else { return false }
        let effects = effects(of: state)
        let priority = state.priorityClass.priority
        return contenders.contains { other in
            guard other.isEffective, other.appKey != state.appKey, other.priority <= priority else { return false }
            let mask = other.priority < priority ? effects.interruptAsHigher : effects.interruptAsEqual
            return mask & (UInt8(1) << UInt8(other.audience)) != 0
        }
    }

    mutating func setPreferredHardware(_ id: SessionID, _ wish: HardwareWish) {
        guard existing(id) else { return }
        if let rate = wish.sampleRate, !(rate > 0 && rate <= 1_000_000) {
            emit(.failed(id, .badParam))
            return
        }
        if let duration = wish.ioBufferDuration, !(duration > 0 && duration <= 10) {
            emit(.failed(id, .badParam))
            return
        }
        sessions[id]?.wish = wish
        refreshContender(id)
        updateHardware()
    }

    mutating func changeCapabilities(_ id: SessionID, _ capabilities: Set<InterruptionMethod>) {
        guard existing(id) else { return }
        let order = configuration.interruptionMethods
        guard let (before, after, interrupted) = update(id, { state -> (InterruptionMethod, InterruptionMethod, Bool) in
            let before = state.interruptionMethod
            state.capabilities = capabilities
            state.fallbackFrom = nil
            state.interruptionMethod = state.method(preferring: order)
            return (before, state.interruptionMethod, state.activity == .interrupted)
        }) else { return }
        // Interrupted by a method it no longer has (streams held by unlinking, and another
        // session manager now links them): undo that one and interrupt by the new one, so
        // the session stays silent and nothing of the old method is left behind.
        if interrupted, before != after {
            emit(.interruptionEnded(id, options: [], method: before))
            emit(.interruptionBegan(id, reason: .default, method: after))
        }
    }

    /// The method of a running interruption failed: the next one the session has (in the
    /// configured order) takes over, on top of what the failed one did — a player whose Pause
    /// never came is held (or muted, where holding is not possible) and still gets its Play at
    /// the end. The next interruption tries the preferred method again.
    mutating func interruptionMethodFailed(_ id: SessionID, _ failed: InterruptionMethod) {
        let order = configuration.interruptionMethods
        guard let fallback = update(id, { state -> InterruptionMethod? in
            guard state.activity == .interrupted, state.interruptionMethod == failed else { return nil }
            let next = order.first { $0 != failed && $0 != .sessionAPI && state.capabilities.contains($0) } ?? .unlink
            state.fallbackFrom = failed
            state.interruptionMethod = next
            return next
        }), let fallback else { return }
        emit(.interruptionBegan(id, reason: .default, method: fallback))
    }

    /// Silent mode and screen lock silence the configured categories (ambient, soloAmbient);
    /// a recording silences notification sounds (``alertsSilencedByRecording``).
    mutating func updateSilencing(of id: SessionID) {
        guard let state = sessions[id] else { return }
        if state.isSystemAlert { systemAlertSessions.insert(id) } else { systemAlertSessions.remove(id) }
        let silenced = (silentMode || screenLocked) && configuration.silencedBySilentMode.contains(state.configuration.category)
            || alertsSilencedByRecording && state.isSystemAlert
        if silenced != state.silenced {
            sessions[id]?.silenced = silenced
            emit(.setSilenced(id, silenced))
        }
    }

    mutating func updateSilencing() {
        for id in sessionOrder { updateSilencing(of: id) }
    }

    /// After each event: whether an explicit session records without allowing system sounds
    /// (iOS silences them while recording). A counter kept with the contenders: O(1).
    mutating func updateAlertSilencing() {
        let silenced = alertSilencingContenders > 0
        guard silenced != alertsSilencedByRecording else { return }
        alertsSilencedByRecording = silenced
        for id in systemAlertSessions.sorted() { updateSilencing(of: id) }
    }

    /// An explicit session's preferences: sparing it from system alerts changes what it meets
    /// in the walk; the others take effect at the next recording or route loss.
    mutating func setPreferences(_ id: SessionID, _ preferences: SessionPreferences) {
        guard existing(id) else { return }
        guard let before = update(id, { state -> SessionPreferences in
            let before = state.preferences
            state.preferences = preferences
            return before
        }) else { return }
        guard contenderIndex(of: id) != nil else { return }
        refreshContender(id)
        if before.prefersNoInterruptionsFromSystemAlerts != preferences.prefersNoInterruptionsFromSystemAlerts {
            arbitrate(cause: nil)
        }
    }

    /// Capture of an app without record permission records silence: one its user denied, or
    /// (the strict profile) one nobody granted yet. Nothing else ever silences a microphone —
    /// an explicit session recording in a category without input is told so
    /// (`cannotStartRecording`), and an implicit session that captures has a category with input.
    mutating func updateCaptureSilencing(of id: SessionID) {
        let undeterminedIsSilent = configuration.silenceUndeterminedCapture
        let changed = update(id) { state -> Bool in
            let permission = state.recordPermission
            let denied = permission == .denied || (permission == .undetermined && undeterminedIsSilent)
            let silenced = state.hasRunningCapture && denied
            guard silenced != state.captureSilenced else { return false }
            state.captureSilenced = silenced
            return true
        }
        if changed == true, let silenced = sessions[id]?.captureSilenced { emit(.setCaptureSilenced(id, silenced)) }
    }

    mutating func changePermission(_ app: String, _ permission: RecordPermission) {
        permissions[app] = permission
        for id in (appSessions[app] ?? []).sorted() {
            update(id) { $0.recordPermission = permission }
            updateCaptureSilencing(of: id)
        }
    }
}

extension Array {
    /// First index whose element satisfies `predicate`, for a predicate that is false then true.
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
