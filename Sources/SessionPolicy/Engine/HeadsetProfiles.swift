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

    public init(canCall: Bool, active: HeadsetProfile?) {
        self.canCall = canCall
        self.active = active
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
extension PolicyEngine {
    /// How long a headset keeps its call profile after the last call: a browser opens and closes
    /// its call's streams for ~0.4 s as a call starts, and a call app may restart its streams;
    /// a headset switch takes a second or more, so each one is not worth its gap in the sound.
    public static let headsetReturnDelay: Duration = .seconds(2)

    mutating func changeHeadsetProfiles(_ device: String, _ profiles: HeadsetProfiles?) {
        headsets[device] = profiles
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

    /// Switches headsets to their call profile while a call wants it, and gives them back their
    /// profile ``headsetReturnDelay`` after. Costs nothing without a headset.
    mutating func updateHeadsetProfiles() {
        guard !headsets.isEmpty || !appliedHeadsetProfiles.isEmpty else { return }
        let calling = contenders.contains { sessions[$0.id].map(takesHeadsetCalls) ?? false }
        // A call counts until the step that ended it.
        if calling || headsetCallRan { lastHeadsetCall = now }
        headsetCallRan = calling
        let returnsAt = lastHeadsetCall.map { $0.advanced(by: Self.headsetReturnDelay) }
        for device in Set(headsets.keys).union(appliedHeadsetProfiles.keys).sorted() {
            let able = headsets[device].map { $0.canCall || $0.active == .call } ?? false
            let applied = appliedHeadsetProfiles[device]
            var wanted: HeadsetProfile? = able && calling && isCurrentOutput(device) ? .call : nil
            if wanted == nil, applied == .call, able, let returnsAt, now < returnsAt {
                wanted = .call  // kept a moment: the next step after the delay gives it back
                if !headsetReturnAwaited {
                    headsetReturnAwaited = true
                    emit(.awaitHeadsetReturn(after: returnsAt - now))
                }
            }
            guard applied != wanted else { continue }
            appliedHeadsetProfiles[device] = wanted
            emit(.selectHeadsetProfile(device: device, wanted))
        }
    }

    /// The delay after the last call is over (``PolicyDecision/awaitHeadsetReturn(after:)``).
    mutating func headsetReturnDue() {
        headsetReturnAwaited = false
    }
}
