/// A Bluetooth headset's profile, as calls need it: `media` is A2DP (good sound, no
/// microphone), `call` is HFP / HSP (the headset's microphone, call quality).
public enum HeadsetProfile: String, Hashable, Sendable, CaseIterable, WireNamed {
    case media
    case call
    public var wireName: String { rawValue }
}

/// What a headset can do and is doing (``PolicyEvent/headsetProfilesChanged(device:_:)``).
public struct HeadsetProfiles: Hashable, Sendable {
    /// It has a call profile that can be chosen now.
    public var canCall: Bool
    /// Its active profile; nil when it is off or in another one.
    public var active: HeadsetProfile?
    /// Its microphone as the call profile brings it, while it is in another profile (its card's
    /// input route of that profile): offered to sessions as an input (``PolicyEngine``'s
    /// headset microphones).
    public var microphone: Port?

    public init(canCall: Bool, active: HeadsetProfile?, microphone: Port? = nil) {
        self.canCall = canCall
        self.active = active
        self.microphone = microphone
    }
}

/// What the engine did to headsets for calls, and when.
struct HeadsetCallState: Sendable {
    /// The profile each headset was switched to.
    var applied: [String: HeadsetProfile] = [:]
    /// Headsets seen in the profile we switched them to: leaving it later is someone else's
    /// switch.
    var reached: Set<String> = []
    /// How often someone else took each headset out of its call profile during this call.
    var contests: [String: Int] = [:]
    /// When the switches we asked for were asked, by headset: its next profile switch within
    /// ``ProfileSwitch/bound`` is ours.
    var requested: [String: Timestamp] = [:]
    /// Headsets given back their profile after a call, by when: until they report it (or
    /// ``ProfileSwitch/bound`` passed), interruptions wait to end.
    var returning: [String: Timestamp] = [:]
    /// Since when an implicit session has taken its calls on a headset without a break.
    var implicitCallSince: Timestamp?
    /// When a session last took its calls on a headset.
    var lastCall: Timestamp?
    /// A session took its calls on a headset at the last step.
    var callRan = false
    /// When the pending ``PolicyDecision/recheckHeadsets(after:)`` comes.
    var recheckAt: Timestamp?
    /// Another session manager switches headsets' profiles
    /// (``PolicyEvent/headsetsSwitchedElsewhere(_:)``).
    var switchedElsewhere = false

    /// The server went: its headsets come back with their own profiles.
    mutating func forgetHeadsets() {
        applied = [:]
        reached = []
        requested = [:]
        returning = [:]
    }
}

/// Calls on a headset (AVAudioSession: `playAndRecord` with `allowBluetooth`, implied by the
/// voiceChat and videoChat modes, uses the headset's HFP microphone and output; `record` with
/// `allowBluetooth` its microphone). While such a session is active and the headset is the
/// output its user has now (the last in), the headset is switched to its call profile;
/// ``headsetReturnDelay`` after the last one, it gets back the profile it had
/// (``PolicyDecision/selectHeadsetProfile(device:_:)`` with nil). A session without the option
/// (an app that only opens the microphone is a recorder without it), or media playback, never
/// switches it.
///
/// Only one program may switch: the configuration's ``HeadsetProfileSwitching`` says whether
/// it is the daemon. A headset someone else takes out of its call profile during a call is
/// switched back while they have done so fewer than ``headsetContestLimit`` times; then it is
/// left as they chose, so two switchers never make it flap.
extension PolicyEngine {
    /// How long a headset keeps its call profile after the last call: a browser opens and closes
    /// its call's streams for ~0.4 s as a call starts, and a call app may restart its streams;
    /// a headset switch takes a second or more, so each one is not worth its gap in the sound.
    public static let headsetReturnDelay: Duration = .seconds(2)
    /// How long an implicit call (an app the rules or its streams make a call) must run before
    /// its headset is switched: a browser opens and closes its call's streams several times in
    /// the first ~0.4 s. An explicit session asked for its category and is served at once.
    public static let headsetCallSettleTime: Duration = .milliseconds(600)
    /// How often another program may take a headset out of its call profile during one call
    /// before the daemon stops switching it back.
    public static let headsetContestLimit = 2

    /// Whether the daemon switches headsets now (``HeadsetProfileSwitching``).
    var switchesHeadsets: Bool {
        switch configuration.headsetProfileSwitching {
        case .daemon: true
        case .never: false
        case .auto: !headsetCalls.switchedElsewhere
        }
    }

    /// Who switches headsets' profiles now, and why: `status` shows it.
    public var headsetSwitching: String {
        let setting = "bluetooth.profile-switching = \(configuration.headsetProfileSwitching.wireName)"
        switch configuration.headsetProfileSwitching {
        case .never: return "never switched by audiosessiond (\(setting))"
        case .daemon: return "switched by audiosessiond for calls (\(setting))"
        case .auto where headsetCalls.switchedElsewhere:
            return "switched by another session manager; audiosessiond follows (\(setting))"
        case .auto: return "switched by audiosessiond for calls: no other session manager switches them (\(setting))"
        }
    }

    mutating func changeHeadsetProfiles(_ device: String, _ profiles: HeadsetProfiles?) {
        headsets[device] = profiles
        if profiles?.active != .call, headsetCalls.returning.removeValue(forKey: device) != nil, !resumesWaitForHeadset {
            arbitrate(cause: nil)  // back in its music profile: the music resumes on it
        }
        guard let active = profiles?.active else { return }
        if active == .call { reachedCallProfile(device) } else { leftCallProfile(device) }
    }

    /// Whether interruptions wait to end because a headset that took a call is on its way back to
    /// its music profile: kept ``headsetReturnDelay`` after the call, then switched (within
    /// ``ProfileSwitch/bound``). The music the call interrupted then resumes on the headset in
    /// good sound, not for a moment in call quality, and a call that comes back within the
    /// delay (a browser re-opening its streams) finds it still interrupted.
    var resumesWaitForHeadset: Bool {
        if !headsetCalls.returning.isEmpty { return true }
        guard headsetCalls.applied.values.contains(.call) else { return false }
        return !contenders.contains { sessions[$0.id].map(takesHeadsetCalls) ?? false } && headsetsChosenForTheirMicrophone.isEmpty
    }

    /// A port of a headset came with a profile switch: what its type says of the profile is
    /// known as soon as its node is, before the device's params are read again (a switch
    /// undone at once may never show in them).
    mutating func headsetPortArrived(_ port: Port) {
        guard let device = port.deviceID, headsetCalls.applied[device] == .call else { return }
        switch port.type {
        case .bluetoothHFP: reachedCallProfile(device)
        case .bluetoothA2DP, .bluetoothLE: leftCallProfile(device)
        default: break
        }
    }

    private mutating func reachedCallProfile(_ device: String) {
        if headsetCalls.applied[device] == .call { headsetCalls.reached.insert(device) }
    }

    /// The headset left the call profile we gave it during the call: someone else switched it.
    /// It is switched back (theirs may have been a slip, or a switcher that gives up), up to
    /// ``headsetContestLimit`` times; then it is theirs until the call ends.
    private mutating func leftCallProfile(_ device: String) {
        guard headsetCalls.applied[device] == .call, headsetCalls.reached.remove(device) != nil else { return }
        headsetCalls.contests[device, default: 0] += 1
        if headsetCalls.contests[device, default: 0] < Self.headsetContestLimit {
            headsetCalls.requested[device] = now
            emit(.selectHeadsetProfile(device: device, .call))
        } else {
            headsetCalls.applied[device] = nil
            emit(.headsetProfileContested(device: device))
        }
    }

    /// Whether a session takes its calls on a headset: it records, and asked for Bluetooth.
    func takesHeadsetCalls(_ state: SessionState) -> Bool {
        let category = state.configuration.category
        return state.activity == .active && (category == .playAndRecord || category == .record)
            && state.configuration.effectiveOptions.contains(.allowBluetooth)
    }

    /// Whether the device's port is the output its user has now: the last output in.
    func isCurrentOutput(_ device: String) -> Bool {
        ports.filter { $0.available && $0.port.direction == .output }.max { $0.lastIn < $1.lastIn }?.port.deviceID == device
    }

    /// Whether a call wants a headset now: an explicit one at once, an implicit one once it has
    /// run for ``headsetCallSettleTime``.
    mutating func headsetCallRuns() -> Bool {
        var explicitCall = false, implicitCall = false
        for contender in contenders {
            guard let state = sessions[contender.id], takesHeadsetCalls(state) else { continue }
            if state.kind == .explicit { explicitCall = true } else { implicitCall = true }
        }
        if !implicitCall { headsetCalls.implicitCallSince = nil }
        else if headsetCalls.implicitCallSince == nil { headsetCalls.implicitCallSince = now }
        if explicitCall { return true }
        guard let settlesAt = headsetCalls.implicitCallSince?.advanced(by: Self.headsetCallSettleTime) else { return false }
        if now < settlesAt {
            recheckHeadsets(at: settlesAt)
            return false
        }
        return true
    }

    /// Switches headsets to their call profile while a call wants it, and gives them back their
    /// profile ``headsetReturnDelay`` after. Costs nothing without a headset.
    mutating func updateHeadsetProfiles() {
        guard !headsets.isEmpty || !headsetCalls.applied.isEmpty || !headsetCalls.returning.isEmpty else { return }
        let held = resumesWaitForHeadset
        defer { if held && !resumesWaitForHeadset { arbitrate(cause: nil) } }
        // A headset that did not come back within the bound is waited for no longer.
        for (device, since) in headsetCalls.returning where now >= since.advanced(by: ProfileSwitch.bound) {
            headsetCalls.returning[device] = nil
        }
        let callRuns = headsetCallRuns()
        let chosen = headsetsChosenForTheirMicrophone
        let calling = callRuns || !chosen.isEmpty
        // A call counts until the step that ended it.
        if calling || headsetCalls.callRan { headsetCalls.lastCall = now }
        headsetCalls.callRan = calling
        let returnsAt = headsetCalls.lastCall.map { $0.advanced(by: Self.headsetReturnDelay) }
        if !calling, returnsAt.map({ now >= $0 }) ?? true { headsetCalls.contests = [:] }  // the next call starts afresh
        for device in Set(headsets.keys).union(headsetCalls.applied.keys).sorted() {
            let yielded = headsetCalls.contests[device, default: 0] >= Self.headsetContestLimit
            let able = switchesHeadsets && !yielded && (headsets[device].map { $0.canCall || $0.active == .call } ?? false)
            let applied = headsetCalls.applied[device]
            var wanted: HeadsetProfile? = able && (chosen.contains(device) || callRuns && isCurrentOutput(device)) ? .call : nil
            if wanted == nil, applied == .call, able, let returnsAt, now < returnsAt {
                wanted = .call  // kept a moment: the recheck after the delay gives it back
                recheckHeadsets(at: returnsAt)
            }
            guard applied != wanted else { continue }
            headsetCalls.applied[device] = wanted
            headsetCalls.reached.remove(device)
            // The switch that follows is ours (a route change for the category's sake).
            if (headsets[device]?.active == .call) != (wanted == .call) { headsetCalls.requested[device] = now }
            if wanted == nil, headsets[device]?.active == .call {
                headsetCalls.returning[device] = now
                recheckHeadsets(at: now.advanced(by: ProfileSwitch.bound))
            } else {
                headsetCalls.returning[device] = nil
            }
            emit(.selectHeadsetProfile(device: device, wanted))
        }
    }

    /// Asks for a ``PolicyEvent/headsetRecheckDue`` at `time`, unless one comes before.
    mutating func recheckHeadsets(at time: Timestamp) {
        if let pending = headsetCalls.recheckAt, pending <= time { return }
        headsetCalls.recheckAt = time
        emit(.recheckHeadsets(after: time - now))
    }

    /// A recheck asked for is due (``PolicyDecision/recheckHeadsets(after:)``): the step's end
    /// looks again.
    mutating func headsetRecheckDue() {
        headsetCalls.recheckAt = nil
    }

    /// Whether a switch of the device that begins now is one we asked for.
    mutating func takeRequestedSwitch(of device: String) -> Bool {
        guard let asked = headsetCalls.requested.removeValue(forKey: device) else { return false }
        return now < asked.advanced(by: ProfileSwitch.bound)
    }
}
