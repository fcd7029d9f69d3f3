/// Arbitration: who plays, who is ducked, who is interrupted, who resumes.
///
/// One walk over the contenders in dominance order (higher class first, then newest
/// first). Each contender is judged by the effects of the playing contenders above it;
/// an interrupted one stops contributing, so whoever it was ducking or interrupting is
/// judged without it — the walk is the fixpoint. Waiting contenders whose interrupters
/// are judged the same way at their old position and resume as soon as nothing above
/// interrupts them (whether their interrupter ended, was reclassified or was itself
/// interrupted). Who interrupted whom is remembered only to know whether the end of the
/// interruption carries `shouldResume`.
extension PolicyEngine {

    // MARK: Contender index (sorted array, binary search)

    func contenderIndex(priority: Int, serial: UInt64) -> Int? {
        var low = 0, high = contenders.count
        while low < high {
            let mid = (low + high) / 2
            let element = contenders[mid]
            if element.priority == priority && element.serial == serial { return mid }
            if Contender.precedes(element.priority, element.serial, priority, serial) { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    func insertionIndex(priority: Int, serial: UInt64) -> Int {
        var low = 0, high = contenders.count
        while low < high {
            let mid = (low + high) / 2
            let element = contenders[mid]
            if Contender.precedes(element.priority, element.serial, priority, serial) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    func contenderIndex(of id: SessionID) -> Int? {
        guard let state = sessions[id], state.activity != .inactive else { return nil }
        return contenderIndex(priority: state.priorityClass.priority, serial: state.serial)
    }

    func makeContender(_ state: SessionState, waiting: Bool) -> Contender {
        Contender(
            id: state.id, priority: state.priorityClass.priority, serial: state.serial,
            audience: (state.isNonMixable ? 1 : 0) | (state.isSpoken ? 2 : 0),
            effects: effects(of: state), isExplicit: state.kind == .explicit,
            isNonMixable: state.isNonMixable, appKey: state.appKey, isWaiting: waiting,
            isResumeCandidate: waiting,
            userPaused: state.userPausedWhileInterrupted,
            hasRunningStreams: state.hasRunningStreams, hasWish: !state.wish.isEmpty)
    }

    /// Re-reads a contender's inline fields from its session (after a configuration or
    /// stream change), keeping what the daemon was told.
    mutating func refreshContender(_ id: SessionID) {
        guard let state = sessions[id], let index = contenderIndex(of: id) else { return }
        var fresh = makeContender(state, waiting: contenders[index].isWaiting)
        fresh.isEffective = contenders[index].isEffective
        fresh.appliedDuckCount = contenders[index].appliedDuckCount
        fresh.appliedHint = contenders[index].appliedHint
        contenders[index] = fresh
    }

    /// Starts contending: a new activation gets the newest serial.
    mutating func enterContention(_ id: SessionID, waiting: Bool, blocker: SessionID? = nil) {
        guard var state = sessions[id] else { return }
        state.serial = nextSerial
        nextSerial += 1
        state.activity = waiting ? .interrupted : .active
        state.activatedAt = now
        state.resumeHint = true
        state.userPausedWhileInterrupted = false
        if let blocker { state.blockers = [blocker] }
        sessions[id] = state
        if let blocker { blocking[blocker, default: []].insert(id) }
        let contender = makeContender(state, waiting: waiting)
        contenders.insert(contender, at: insertionIndex(priority: contender.priority, serial: contender.serial))
    }

    /// Stops contending (deactivated, stopped, removed): restores its gain, forgets its hint,
    /// and releases whoever it was keeping interrupted.
    /// - Parameter resumeHint: whether those may resume (`notifyOthersOnDeactivation`, or an
    ///   implicit session that simply stopped).
    mutating func leaveContention(_ id: SessionID, resumeHint: Bool, notify: Bool = true) {
        if let index = contenderIndex(of: id) {
            let contender = contenders.remove(at: index)
            if notify && contender.appliedDuckCount != 0 {
                emit(.setGain(id, gain: 1.0, ramp: configuration.unduckRamp))
            }
        }
        if var state = sessions[id] {
            for blocker in state.blockers { blocking[blocker]?.remove(id) }
            state.blockers = []
            state.activity = .inactive
            state.userPausedWhileInterrupted = false
            sessions[id] = state
        }
        release(id, resumeHint: resumeHint)
    }

    /// `id` no longer keeps anyone interrupted.
    mutating func release(_ id: SessionID, resumeHint: Bool) {
        guard let waiters = blocking.removeValue(forKey: id) else { return }
        for waiter in waiters.sorted() {
            guard var state = sessions[waiter] else { continue }
            state.blockers.remove(id)
            if !resumeHint { state.resumeHint = false }
            sessions[waiter] = state
        }
    }

    // MARK: The walk

    /// Who would interrupt a session of this priority and audience if it activated now (as
    /// the newest of its class)? `nil`: it may play. Does not change anything.
    func interrupter(forPriority priority: Int, audience: Int) -> SessionID? {
        var higherInterrupt = AudienceCounts(), higherDuck = AudienceCounts()
        var pendingInterrupt = AudienceCounts(), pendingDuck = AudienceCounts()
        var equalInterrupt = AudienceCounts()
        var higherInterrupter: [SessionID?] = [nil, nil, nil, nil]
        var pendingInterrupter: [SessionID?] = [nil, nil, nil, nil]
        var equalInterrupter: [SessionID?] = [nil, nil, nil, nil]
        var currentPriority: Int?
        for contender in contenders {
            if contender.priority != currentPriority {
                higherInterrupt.values &+= pendingInterrupt.values
                higherDuck.values &+= pendingDuck.values
                for a in 0..<4 where higherInterrupter[a] == nil { higherInterrupter[a] = pendingInterrupter[a] }
                pendingInterrupt = AudienceCounts(); pendingDuck = AudienceCounts()
                pendingInterrupter = [nil, nil, nil, nil]
                equalInterrupt = AudienceCounts(); equalInterrupter = [nil, nil, nil, nil]
                currentPriority = contender.priority
            }
            if contender.priority <= priority { break }
            let a = contender.audience
            let interrupted = higherInterrupt[a] + equalInterrupt[a] > 0
            let plays: Bool
            if contender.isWaiting {
                plays = contender.isResumeCandidate && !interrupted && !contender.userPaused
                    && !contender.isExplicit && contender.hasRunningStreams
                    && configuration.resumeAfterInterruption
                    && sessions[contender.id].map {
                        $0.resumeHint && !$0.userPausedWhileInterrupted && $0.configuration.effectiveMode != .voicePrompt
                    } ?? false
            } else {
                plays = !interrupted
            }
            guard plays else { continue }
            let effects = contender.effects
            pendingInterrupt.add(mask: effects.interruptAsHigher)
            pendingDuck.add(mask: effects.duckAsHigher)
            equalInterrupt.add(mask: effects.interruptAsEqual)
            for b in 0..<4 where pendingInterrupter[b] == nil && effects.interruptAsHigher & (1 << UInt8(b)) != 0 {
                pendingInterrupter[b] = contender.id
            }
            for b in 0..<4 where equalInterrupter[b] == nil && effects.interruptAsEqual & (1 << UInt8(b)) != 0 {
                equalInterrupter[b] = contender.id
            }
        }
        if currentPriority.map({ $0 > priority }) ?? false {
            for a in 0..<4 where higherInterrupter[a] == nil { higherInterrupter[a] = pendingInterrupter[a] }
        }
        return higherInterrupter[audience]
    }

    /// Re-judges every contender and emits what changed: interruptions began / ended,
    /// gains, secondary-audio hints, the hardware choice.
    mutating func arbitrate(cause: SessionID?) {
        var higherInterrupt = AudienceCounts(), higherDuck = AudienceCounts()
        var pendingInterrupt = AudienceCounts(), pendingDuck = AudienceCounts()
        var equalInterrupt = AudienceCounts(), equalDuck = AudienceCounts()
        var higherInterrupter: [SessionID?] = [nil, nil, nil, nil]
        var pendingInterrupter: [SessionID?] = [nil, nil, nil, nil]
        var equalInterrupter: [SessionID?] = [nil, nil, nil, nil]
        var currentPriority: Int?
        var leaving: [Int] = []
        // Non-mixable playing sessions: how many, and of how many apps (for the hint).
        var nonMixableCount = 0
        var firstNonMixableApp = -1
        var severalNonMixableApps = false

        for index in contenders.indices {
            let contender = contenders[index]
            if contender.priority != currentPriority {
                higherInterrupt.values &+= pendingInterrupt.values
                higherDuck.values &+= pendingDuck.values
                for a in 0..<4 where higherInterrupter[a] == nil { higherInterrupter[a] = pendingInterrupter[a] }
                pendingInterrupt = AudienceCounts(); pendingDuck = AudienceCounts()
                pendingInterrupter = [nil, nil, nil, nil]
                equalInterrupt = AudienceCounts(); equalDuck = AudienceCounts()
                equalInterrupter = [nil, nil, nil, nil]
                currentPriority = contender.priority
            }
            let a = contender.audience
            let interrupted = higherInterrupt[a] + equalInterrupt[a] > 0
            var plays = false
            if !contender.isWaiting {
                if interrupted {
                    let interrupter = equalInterrupter[a] ?? higherInterrupter[a] ?? cause
                    interrupt(at: index, by: interrupter)
                } else {
                    plays = true
                }
            } else if contender.isResumeCandidate {
                if interrupted {
                    let interrupter = equalInterrupter[a] ?? higherInterrupter[a]
                    if let interrupter { block(at: index, by: interrupter) }
                } else if endInterruption(at: index) {
                    plays = true
                } else {
                    leaving.append(index)
                }
            }
            contenders[index].isEffective = plays
            guard plays else { continue }

            let duckCount = higherDuck[a] + equalDuck[a]
            if duckCount != contenders[index].appliedDuckCount {
                let ramp = duckCount > contenders[index].appliedDuckCount ? configuration.duckRamp : configuration.unduckRamp
                contenders[index].appliedDuckCount = duckCount
                emit(.setGain(contender.id, gain: gain(forDuckCount: duckCount), ramp: ramp))
            }
            let effects = contender.effects
            pendingInterrupt.add(mask: effects.interruptAsHigher)
            pendingDuck.add(mask: effects.duckAsHigher)
            equalInterrupt.add(mask: effects.interruptAsEqual)
            equalDuck.add(mask: effects.duckAsEqual)
            if effects.interruptAsHigher != 0 {
                for b in 0..<4 where pendingInterrupter[b] == nil && effects.interruptAsHigher & (1 << UInt8(b)) != 0 {
                    pendingInterrupter[b] = contender.id
                }
            }
            if effects.interruptAsEqual != 0 {
                for b in 0..<4 where equalInterrupter[b] == nil && effects.interruptAsEqual & (1 << UInt8(b)) != 0 {
                    equalInterrupter[b] = contender.id
                }
            }
            if contender.isNonMixable {
                nonMixableCount += 1
                if firstNonMixableApp < 0 { firstNonMixableApp = contender.appKey }
                else if firstNonMixableApp != contender.appKey { severalNonMixableApps = true }
            }
        }
        for index in leaving.reversed() { contenders.remove(at: index) }
        updateHints(nonMixableCount: nonMixableCount, firstApp: firstNonMixableApp, severalApps: severalNonMixableApps)
        updateHardware()
    }

    /// A playing contender is interrupted: it stops and waits for `interrupter` to end.
    mutating func interrupt(at index: Int, by interrupter: SessionID?) {
        let id = contenders[index].id
        guard var state = sessions[id] else { return }
        contenders[index].isWaiting = true
        contenders[index].userPaused = false
        state.activity = .interrupted
        state.resumeHint = true
        state.userPausedWhileInterrupted = false
        if let interrupter, interrupter != id {
            state.blockers.insert(interrupter)
            blocking[interrupter, default: []].insert(id)
        }
        contenders[index].isResumeCandidate = true
        sessions[id] = state
        emit(.interruptionBegan(id, reason: .default, method: state.method(preferring: configuration.interruptionMethods)))
        if contenders[index].appliedDuckCount != 0 {
            contenders[index].appliedDuckCount = 0
            emit(.setGain(id, gain: 1.0, ramp: configuration.unduckRamp))
        }
        contenders[index].appliedHint = false
    }

    /// A waiting contender is still held, now by `interrupter` too.
    mutating func block(at index: Int, by interrupter: SessionID) {
        let id = contenders[index].id
        guard interrupter != id else { return }
        sessions[id]?.blockers.insert(interrupter)
        blocking[interrupter, default: []].insert(id)
    }

    /// Nothing interrupts a waiting contender any more: tell it. Returns whether it plays
    /// again right away (an implicit session whose streams still run); otherwise it
    /// leaves contention (the caller removes it).
    mutating func endInterruption(at index: Int) -> Bool {
        let id = contenders[index].id
        guard var state = sessions[id] else { return false }
        let userPaused = state.userPausedWhileInterrupted || contenders[index].userPaused
        // A voice prompt is stale once interrupted: never resume it (reference §9).
        let stale = state.configuration.effectiveMode == .voicePrompt
        let resume = configuration.resumeAfterInterruption && state.resumeHint && !userPaused && !stale
        emit(.interruptionEnded(id, options: resume ? .shouldResume : [], method: state.method(preferring: configuration.interruptionMethods)))
        state.userPausedWhileInterrupted = false
        state.blockers = []
        if resume && state.kind == .implicit && state.hasRunningStreams {
            state.activity = .active
            sessions[id] = state
            contenders[index].isWaiting = false
            contenders[index].isResumeCandidate = false
            contenders[index].userPaused = false
            return true
        }
        state.activity = .inactive
        sessions[id] = state
        // An implicit session resumed without shouldResume keeps its streams paused.
        if state.kind == .implicit {
            for streamIndex in state.streams.indices { sessions[id]?.streams[streamIndex].pausedByUser = true }
        }
        release(id, resumeHint: true)
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
            hardwareChoice = choice
            emit(.setHardware(choice))
        }
    }
}
