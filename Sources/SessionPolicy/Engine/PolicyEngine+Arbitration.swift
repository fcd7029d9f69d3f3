/// Arbitration: who plays, who is ducked, who is interrupted, who resumes.
///
/// One walk over the contenders in dominance order (higher class first, then newest
/// first). Each contender is judged by the effects of the playing contenders above it;
/// an interrupted one stops contributing, so whoever it was ducking or interrupting is
/// judged without it — the walk is the fixpoint. Waiting contenders are judged the same
/// way at their old position and resume as soon as nothing above interrupts them
/// (whether their interrupter ended, was reclassified or was itself interrupted). Who
/// interrupted whom is remembered only to know whether the end carries `shouldResume`.
extension PolicyEngine {

    // MARK: Contender index (sorted array, binary search)

    func contenderIndex(priority: Int, serial: UInt64) -> Int? {
        let index = insertionIndex(priority: priority, serial: serial)
        guard index < contenders.count, contenders[index].priority == priority, contenders[index].serial == serial else { return nil }
        return index
    }

    func insertionIndex(priority: Int, serial: UInt64) -> Int {
        var low = 0, high = contenders.count
        while low < high {
            let mid = (low + high) / 2
            if Contender.precedes(contenders[mid].priority, contenders[mid].serial, priority, serial) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    func contenderIndex(of id: SessionID) -> Int? {
        guard let index = sessions.index(forKey: id), sessions.values[index].activity != .inactive else { return nil }
        return contenderIndex(priority: sessions.values[index].priorityClass.priority, serial: sessions.values[index].serial)
    }

    func makeContender(_ state: SessionState, waiting: Bool) -> Contender {
        Contender(
            id: state.id, priority: state.priorityClass.priority, serial: state.serial, appKey: state.appKey,
            audience: state.audience,
            effects: effects(of: state), isExplicit: state.kind == .explicit, silencesAlerts: state.silencesAlerts,
            isNonMixable: state.isNonMixable, hasWish: !state.wish.isEmpty, isSpared: isSpared(state), isWaiting: waiting,
            resumesToPlay: resumesToPlay(state))
    }

    /// Whether no interruption holds it: a recorder (``PolicyConfiguration/sparesRecorders``),
    /// or an app still opening its streams (``PolicyConfiguration/sparesOpeningApps``).
    func isSpared(_ state: SessionState) -> Bool {
        (configuration.sparesRecorders && state.isRecorder) || state.isOpening
    }

    /// Whether the end of its interruption lets it play again at once.
    func resumesToPlay(_ state: SessionState) -> Bool {
        configuration.resumeAfterInterruption && state.kind == .implicit && state.hasRunningStreams
            && state.resumeHint && !state.userPausedWhileInterrupted
            && state.configuration.effectiveMode != .voicePrompt
    }

    /// Re-reads a contender's inline fields from its session (after a configuration or
    /// stream change), keeping what the daemon was told.
    mutating func refreshContender(_ id: SessionID) {
        guard let index = contenderIndex(of: id), let position = sessions.index(forKey: id) else { return }
        var fresh = makeContender(sessions.values[position], waiting: contenders[index].isWaiting)
        fresh.isEffective = contenders[index].isEffective
        fresh.appliedDuckCount = contenders[index].appliedDuckCount
        fresh.appliedHint = contenders[index].appliedHint
        fresh.lastBlocker = contenders[index].lastBlocker
        fresh.heldByMutedInput = contenders[index].heldByMutedInput
        count(contenders[index], by: -1)
        count(fresh, by: 1)
        contenders[index] = fresh
    }

    /// Keeps the per-kind contender counts (explicit, silencing alerts) as a contender comes
    /// (+1) or goes (-1).
    mutating func count(_ contender: Contender, by delta: Int) {
        if contender.isExplicit { explicitContenders += delta }
        if contender.silencesAlerts { alertSilencingContenders += delta }
    }

    /// Starts contending: a new activation gets the newest serial.
    mutating func enterContention(_ id: SessionID, waiting: Bool, blocker: SessionID? = nil) {
        let serial = nextSerial
        nextSerial += 1
        let now = self.now
        guard let state = update(id, { state in
            state.serial = serial
            state.activity = waiting ? .interrupted : .active
            state.activatedAt = now
            state.resumeHint = true
            state.userPausedWhileInterrupted = false
            return state
        }) else { return }
        var contender = makeContender(state, waiting: waiting)
        contender.lastBlocker = blocker?.rawValue ?? WalkCounters.none
        contenders.insert(contender, at: insertionIndex(priority: contender.priority, serial: contender.serial))
        count(contender, by: 1)
        if waiting { waitingContenders += 1 }
    }

    /// Stops contending (deactivated, stopped, removed): restores its gain, forgets its hint,
    /// and releases whoever it was keeping interrupted.
    /// - Parameter resumeHint: whether those may resume (`notifyOthersOnDeactivation`, or an
    ///   implicit session that simply stopped).
    @discardableResult
    mutating func leaveContention(_ id: SessionID, resumeHint: Bool, notify: Bool = true) -> Contender? {
        var removed: Contender?
        if let index = contenderIndex(of: id) {
            let contender = contenders.remove(at: index)
            removed = contender
            count(contender, by: -1)
            if contender.isWaiting { waitingContenders -= 1 }
            if notify && contender.appliedDuckCount != 0 {
                emit(.setGain(id, gain: 1.0, ramp: configuration.unduckRamp))
            }
        }
        update(id) { state in
            state.activity = .inactive
            state.userPausedWhileInterrupted = false
        }
        release(id, resumeHint: resumeHint)
        return removed
    }

    /// `id` no longer keeps anyone interrupted. Ending without `notifyOthersOnDeactivation`
    /// takes `shouldResume` away from those it interrupted. (A scan, but only on such ends.)
    mutating func release(_ id: SessionID, resumeHint: Bool) {
        guard !resumeHint else { return }
        for index in contenders.indices where contenders[index].isWaiting && contenders[index].lastBlocker == id.rawValue {
            update(contenders[index].id) { $0.resumeHint = false }
            contenders[index].resumesToPlay = false
        }
    }

    // MARK: The walk

    /// What a session of this priority and audience would meet if it activated now (as the
    /// newest of its class): who interrupts it (nobody when it is `spared`), or else how many
    /// duck it. Changes nothing; walks only the contenders of higher classes.
    func arrival(priority: Int, audience: Int, spared: Bool = false) -> Arrival {
        var counters = WalkCounters()
        for contender in contenders {
            if contender.priority <= priority { break }
            counters.enter(priority: contender.priority)
            let interrupted = !contender.isSpared && counters.isInterrupted(contender.audience)
            let plays = contender.isWaiting ? !interrupted && contender.resumesToPlay : !interrupted
            if plays { counters.contribute(contender.effects, id: contender.id) }
        }
        counters.enter(priority: priority)
        let raw = counters.interrupter(audience)
        return Arrival(
            interrupter: !spared && counters.isInterrupted(audience) && raw != WalkCounters.none ? SessionID(raw) : nil,
            duckCount: counters.duckCount(audience))
    }

    struct Arrival {
        var interrupter: SessionID?
        var duckCount: Int32
    }

    func interrupter(forPriority priority: Int, audience: Int, spared: Bool = false) -> SessionID? {
        arrival(priority: priority, audience: audience, spared: spared).interrupter
    }

    /// A contender whose arrival or departure changes nobody else: it ducks and interrupts
    /// no one, nobody waits to be re-judged, it wants no hardware values, and no hint
    /// depends on it. Then the walk is skipped (the common case of a media player starting
    /// or stopping among others), and per-event cost stays at the contenders above it.
    func changesNobody(_ contender: Contender) -> Bool {
        contender.effects.isNone && waitingContenders == 0 && !contender.hasWish && !contender.isExplicit
            && !(contender.isNonMixable && explicitContenders > 0)
    }

    /// Activates an implicit session nothing interrupts: walks only if others may change.
    mutating func activatePlaying(_ id: SessionID, arrival: Arrival) {
        enterContention(id, waiting: false)
        emit(.activated(id))
        guard let index = contenderIndex(of: id), changesNobody(contenders[index]) else {
            arbitrate(cause: id)
            return
        }
        contenders[index].isEffective = true
        if arrival.duckCount != 0 {
            contenders[index].appliedDuckCount = arrival.duckCount
            emit(.setGain(id, gain: gain(forDuckCount: arrival.duckCount), ramp: configuration.duckRamp))
        }
    }

    /// What the walk found to change at one contender, carried out after the walk.
    enum WalkChange {
        case interrupt(index: Int, by: UInt64)
        case end(index: Int)
        case gain(index: Int, previous: Int32)
    }

    /// Re-judges every contender and emits what changed: interruptions began / ended,
    /// gains, secondary-audio hints, the hardware choice.
    mutating func arbitrate(cause: SessionID?) {
        var changes = walkScratch
        changes.removeAll(keepingCapacity: true)
        var counters = WalkCounters()
        var nonMixableCount = 0
        var firstNonMixableApp = -1
        var severalNonMixableApps = false
        var anyWish = false
        var waiting = 0
        let resumesWait = resumesWaitForHeadset

        contenders.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices {
                counters.enter(priority: buffer[index].priority)
                let audience = buffer[index].audience
                let interrupted = !buffer[index].isSpared && counters.isInterrupted(audience)
                var plays = false
                if !buffer[index].isWaiting {
                    if interrupted {
                        waiting += 1
                        let by = counters.interrupter(audience)
                        changes.append(.interrupt(index: index, by: by != WalkCounters.none ? by : cause?.rawValue ?? WalkCounters.none))
                    } else {
                        plays = true
                    }
                } else if interrupted || buffer[index].heldByMutedInput || resumesWait {
                    waiting += 1
                    // Still held, perhaps by someone else now: that one's end decides shouldResume.
                    let by = counters.interrupter(audience)
                    if interrupted && by != WalkCounters.none { buffer[index].lastBlocker = by }
                    // Only waiting for a headset to come back: its interrupter's end was had
                    // already (and decided shouldResume), its later removal changes nothing.
                    if !interrupted && !buffer[index].heldByMutedInput { buffer[index].lastBlocker = WalkCounters.none }
                } else {
                    changes.append(.end(index: index))
                    plays = buffer[index].resumesToPlay
                }
                buffer[index].isEffective = plays
                guard plays else { continue }

                let duckCount = counters.duckCount(audience)
                if duckCount != buffer[index].appliedDuckCount {
                    if (duckCount > 0) != (buffer[index].appliedDuckCount > 0) {
                        changes.append(.gain(index: index, previous: buffer[index].appliedDuckCount))
                    }
                    buffer[index].appliedDuckCount = duckCount
                }
                counters.contribute(buffer[index].effects, id: buffer[index].id)
                if buffer[index].hasWish { anyWish = true }
                if buffer[index].isNonMixable {
                    nonMixableCount += 1
                    let app = buffer[index].appKey
                    if firstNonMixableApp < 0 { firstNonMixableApp = app } else if firstNonMixableApp != app { severalNonMixableApps = true }
                }
            }
        }

        var leaving: [Int] = []
        for change in changes {
            switch change {
            case .interrupt(let index, let by):
                interrupt(at: index, by: by == WalkCounters.none ? nil : SessionID(by))
            case .end(let index):
                if !endInterruption(at: index) { leaving.append(index) }
            case .gain(let index, let previous):
                let contender = contenders[index]
                let ramp = contender.appliedDuckCount > previous ? configuration.duckRamp : configuration.unduckRamp
                emit(.setGain(contender.id, gain: gain(forDuckCount: contender.appliedDuckCount), ramp: ramp))
            }
        }
        walkScratch = changes
        waitingContenders = waiting
        if explicitContenders > 0 {
            updateHints(nonMixableCount: nonMixableCount, firstApp: firstNonMixableApp, severalApps: severalNonMixableApps)
        }
        for index in leaving.reversed() {
            count(contenders.remove(at: index), by: -1)
        }
        if anyWish || hardwareChoice != .systemDefault { updateHardware() }
    }

    /// A playing contender is interrupted: it stops and waits for its interrupter to end.
    mutating func interrupt(at index: Int, by interrupter: SessionID?, reason: InterruptionReason = .default) {
        let id = contenders[index].id
        let resumeAllowed = configuration.resumeAfterInterruption
        guard let (method, resumes) = update(id, { state -> (InterruptionMethod, Bool) in
            state.activity = .interrupted
            state.endFallback()
            state.resumeHint = true
            state.userPausedWhileInterrupted = false
            let resumes = resumeAllowed && state.kind == .implicit && state.hasRunningStreams
                && state.configuration.effectiveMode != .voicePrompt
            return (state.interruptionMethod, resumes)
        }) else { return }
        contenders[index].isWaiting = true
        contenders[index].resumesToPlay = resumes
        contenders[index].lastBlocker = interrupter?.rawValue ?? WalkCounters.none
        emit(.interruptionBegan(id, reason: reason, method: method))
        if contenders[index].appliedDuckCount != 0 {
            contenders[index].appliedDuckCount = 0
            emit(.setGain(id, gain: 1.0, ramp: configuration.unduckRamp))
        }
        contenders[index].appliedHint = false
    }

    /// Nothing interrupts a waiting contender any more: tell it. Returns whether it plays
    /// again right away (an implicit session whose streams still run); otherwise it
    /// leaves contention (the caller removes it).
    mutating func endInterruption(at index: Int) -> Bool {
        let id = contenders[index].id
        let plays = contenders[index].resumesToPlay
        let resumeAllowed = configuration.resumeAfterInterruption
        guard let (method, options) = update(id, { state -> (InterruptionMethod, InterruptionOptions) in
            let stale = state.configuration.effectiveMode == .voicePrompt
            let resume = resumeAllowed && state.resumeHint && !state.userPausedWhileInterrupted && !stale
            state.userPausedWhileInterrupted = false
            if plays {
                state.activity = .active
            } else {
                state.activity = .inactive
                // An implicit session resumed without shouldResume stays paused until its user plays.
                if state.kind == .implicit {
                    for streamIndex in state.streams.indices { state.streams[streamIndex].pausedByUser = true }
                }
            }
            let method = state.interruptionMethod
            state.endFallback()
            return (method, resume ? .shouldResume : [])
        }) else { return false }
        emit(.interruptionEnded(id, options: options, method: method))
        contenders[index].lastBlocker = WalkCounters.none
        if plays {
            contenders[index].isWaiting = false
            return true
        }
        return false
    }

    /// `silenceSecondaryAudioHint` to explicit playing sessions: begin while a non-mixable
    /// session of another app plays, end when none does.
    mutating func updateHints(nonMixableCount: Int, firstApp: Int, severalApps: Bool) {
        guard configuration.secondaryAudioHints else { return }
        for index in contenders.indices where contenders[index].isExplicit {
            let contender = contenders[index]
            guard contender.isEffective else {
                contenders[index].appliedHint = false
                continue
            }
            let hint = nonMixableCount > 0 && (severalApps || firstApp != contender.appKey)
            if hint != contender.appliedHint {
                contenders[index].appliedHint = hint
                emit(.secondaryAudioHint(contender.id, hint ? .begin : .end))
            }
        }
    }

    /// One hardware choice from the playing sessions' wishes; emitted when it changes.
    mutating func updateHardware() {
        guard configuration.hardwareArbitration else { return }
        var wishes: [HardwareArbiter.Contender] = []
        for contender in contenders where contender.isEffective && contender.hasWish {
            guard let state = sessions[contender.id] else { continue }
            wishes.append(.init(wish: state.wish, isMixable: !contender.isNonMixable, activationSerial: contender.serial))
        }
        let choice = HardwareArbiter(limits: configuration.hardwareLimits).choice(among: wishes)
        if choice != hardwareChoice {
            // While nothing runs, sessions read the choice itself.
            let before = observedHardware == nil ? actualHardware() : nil
            hardwareChoice = choice
            emit(.setHardware(choice))
            if let before { reportHardware(ifChangedFrom: before) }
        }
    }

    /// Changes one session in place (one hash lookup, no copy of its arrays and sets).
    @discardableResult
    mutating func update<Result>(_ id: SessionID, _ body: (inout SessionState) -> Result) -> Result? {
        guard let index = sessions.index(forKey: id) else { return nil }
        return body(&sessions.values[index])
    }
}
