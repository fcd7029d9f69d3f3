/// What the engine decided, in the order the daemon should carry it out.
///
/// Decisions about a session are session-level state: the daemon applies them to every
/// stream of that session, including streams that appear later.
public enum PolicyDecision: Hashable, Sendable {
    /// An activation request was granted (reply to `SetActive(true)`, or a stream started).
    /// Closes any interruption of the session: it took its audio back itself.
    case activated(SessionID)
    /// The session is inactive now: reply to `SetActive(false)`, or an implicit session whose
    /// streams stopped, paused or vanished. Closes any interruption without an ended.
    case deactivated(SessionID)
    /// A request was refused, or a stream did something its category forbids.
    case failed(SessionID, AudioSessionError)
    /// Stop the session's audio: signal it (`sessionAPI`), MPRIS `Pause`, unlink or mute.
    case interruptionBegan(SessionID, reason: InterruptionReason, method: InterruptionMethod)
    /// Undo the interruption; with `shouldResume` the app may (MPRIS: we) play again.
    /// Without it, only undo unlink / mute and do not press play.
    case interruptionEnded(SessionID, options: InterruptionOptions, method: InterruptionMethod)
    /// Ramp our own gain factor of the session to `gain` (1.0 = untouched) over `ramp`.
    case setGain(SessionID, gain: Double, ramp: Duration)
    /// Silent mode / screen lock silences (or releases) the session.
    case setSilenced(SessionID, Bool)
    /// Capture streams of the session record silence (record permission).
    case setCaptureSilenced(SessionID, Bool)
    /// Link the session's streams to these ports now.
    case link(SessionID, RouteDescription)
    /// Tell the session its route changed.
    case routeChanged(SessionID, reason: RouteChangeReason, previous: RouteDescription)
    /// Its output went away and its category pauses on unplug: pause it (not resumable).
    case pauseForRouteLoss(SessionID, method: InterruptionMethod)
    /// `silenceSecondaryAudioHint` to an active session.
    case secondaryAudioHint(SessionID, SilenceSecondaryAudioHintType)
    /// Write the system hardware choice (nil fields: back to defaults).
    case setHardware(HardwareChoice)
    /// Tell a session the values the graph actually runs at.
    case reportHardware(SessionID, HardwareValues)
    case mediaServicesLost
    case mediaServicesReset
    /// The current media player changed (nil: there is none): media controls go to it.
    case nowPlayingChanged(SessionID?)
    /// The volume of the session's output device changed (its `outputVolume`).
    case outputVolumeChanged(SessionID, Double)
    /// The volume of the session's input device changed (its `inputGain`).
    case inputGainChanged(SessionID, Double)
    /// Put an input device at a session's gain (0…1 on its volume control's scale); nil: give
    /// it back the volume its user had.
    case applyInputGain(DeviceID, Double?)
    /// Make a data source (a route of the device's card) the device's active one; nil: give the
    /// device back the route it had.
    case selectDataSource(DeviceID, UInt32?)
    /// A device (by `Port.deviceID`) began to switch profile (its switch `number`): send
    /// ``PolicyEvent/profileSwitchEnded(device:switch:)`` after `within`.
    case awaitProfileSwitch(device: String, switch: UInt64, within: Duration)
    /// Switch the headset (by `Port.deviceID`) to this profile; nil: give it back the profile
    /// it had before. The same profile again means someone else switched it away meanwhile:
    /// switch it, whatever the device's params still say.
    case selectHeadsetProfile(device: String, HeadsetProfile?)
    /// Send ``PolicyEvent/headsetRecheckDue`` after this long (a call settled, or the delay
    /// after the last call is over).
    case recheckHeadsets(after: Duration)
    /// Another program took the headset out of its call profile during a call
    /// ``PolicyEngine/headsetContestLimit`` times: the daemon leaves it as they chose until the
    /// call ends, and forgets its switch (nothing to give back: they chose).
    case headsetProfileContested(device: String)

    /// The session a decision is about, if any.
    public var session: SessionID? {
        switch self {
        case .activated(let id), .deactivated(let id), .failed(let id, _),
             .interruptionBegan(let id, _, _), .interruptionEnded(let id, _, _),
             .setGain(let id, _, _), .setSilenced(let id, _), .setCaptureSilenced(let id, _),
             .link(let id, _), .routeChanged(let id, _, _), .pauseForRouteLoss(let id, _),
             .secondaryAudioHint(let id, _), .reportHardware(let id, _), .outputVolumeChanged(let id, _),
             .inputGainChanged(let id, _):
            id
        case .setHardware, .mediaServicesLost, .mediaServicesReset, .nowPlayingChanged, .applyInputGain, .selectDataSource,
             .awaitProfileSwitch, .selectHeadsetProfile, .recheckHeadsets, .headsetProfileContested:
            nil
        }
    }
}
