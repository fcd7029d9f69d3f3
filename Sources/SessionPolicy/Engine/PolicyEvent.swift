/// Everything the daemon tells the engine. Timestamps travel beside events
/// (`PolicyEngine.handle(_:at:)`), from the caller's clock.
public enum PolicyEvent: Hashable, Sendable {
    // Sessions
    case sessionCreated(SessionID, SessionDescriptor)
    case sessionRemoved(SessionID)
    /// `setCategory(_:mode:options:)`: validated; options reset to exactly these.
    case setCategory(SessionID, Category, mode: Mode, options: CategoryOptions)
    /// The rules (re)classified a session (implicit sessions, or a rules reload).
    case reclassify(SessionID, Classification)
    /// An app that was opening its streams has had ``AppBehaviour/openingWindow``: it is
    /// judged like any other from now on (``PolicyConfiguration/sparesOpeningApps``).
    case openingEnded(SessionID)
    case setActive(SessionID, Bool, options: SetActiveOptions)
    case setPreferredHardware(SessionID, HardwareWish)
    /// `nil` clears the preference.
    case setPreferredInput(SessionID, portUID: String?)
    case overrideOutputAudioPort(SessionID, OutputOverride)
    /// An explicit session's preferred number of channels for one direction (nil clears).
    case setPreferredChannels(SessionID, PortDirection, Int?)
    /// An explicit session's preferences (system alerts, route disconnect, sounds while recording).
    case setPreferences(SessionID, SessionPreferences)
    /// `setInputGain`: the volume the session wants its input device at while it is active.
    case setInputGain(SessionID, Double)
    /// `setInputDataSource` / `setOutputDataSource`: the route the session wants its port's
    /// card to use while it is active (nil: no wish).
    case setDataSource(SessionID, PortDirection, UInt32?)
    case capabilitiesChanged(SessionID, Set<InterruptionMethod>)
    /// The method interrupting the session could not stop its audio (an MPRIS player never
    /// confirmed its Pause): until this interruption ends, the next method it has stops it.
    case interruptionMethodFailed(SessionID, InterruptionMethod)

    // Streams
    /// A stream of the session runs (new, or un-paused by its user).
    case streamStarted(SessionID, StreamID)
    /// Its user paused it (pulse `pulse.corked`). The daemon reports only pauses it did not
    /// cause itself (its own MPRIS `Pause` for an interruption is not a user pause).
    case streamPausedByUser(StreamID)
    /// Stopped or gone.
    case streamStopped(StreamID)
    /// The stream plays on a device it (or a mixer) named itself, not on its session's route;
    /// nil: it follows its route again (or is gone). Pause on unplug spares a session whose
    /// playback all plays elsewhere than on the route that went away.
    case streamPinned(StreamID, to: DeviceID?)

    // Devices and routes
    /// The full device list (startup, or after the graph came back): ports in discovery
    /// order plus the defaults; replaces what the engine knew.
    case devicesEnumerated([Port], defaultOutput: String?, defaultInput: String?)
    /// Hot-plugged: last in wins.
    case deviceAdded(Port)
    case deviceRemoved(uid: String)
    /// The port's node went while its device stays: the device is switching profile
    /// (``ProfileSwitch``). The port keeps its place until the device's new ports come, or
    /// until ``profileSwitchEnded(device:)``.
    case deviceSwitchingProfile(uid: String)
    /// ``ProfileSwitch/bound`` after a device began to switch (``PolicyDecision/awaitProfileSwitch(device:switch:within:)``):
    /// a port of it that was not replaced is gone.
    case profileSwitchEnded(device: String, switch: UInt64)
    /// A device (by `Port.deviceID`) reports its active profile, by name, and whether its user
    /// chose and saved it (a `Profile` param's `save`): when first seen and when it changes. A
    /// switch's sessions hear their route change with the reason it gives (``ProfileSwitch``).
    case deviceProfileReported(device: String, profile: String, saved: Bool)
    /// A Bluetooth headset (by `Port.deviceID`) appeared or its profiles changed; nil: it went.
    case headsetProfilesChanged(device: String, HeadsetProfiles?)
    /// The time a ``PolicyDecision/recheckHeadsets(after:)`` asked for has come.
    case headsetRecheckDue
    /// Another session manager switches headsets' profiles (WirePlumber with its autoswitch
    /// on), or no longer does: in ``HeadsetProfileSwitching/auto`` the daemon then does not.
    case headsetsSwitchedElsewhere(Bool)
    /// A device route's `available` changed (jack sensing): like plug / unplug, port kept.
    case portAvailabilityChanged(uid: String, available: Bool)
    /// A known port's description changed (channels, type, name: a profile or format switch):
    /// sessions on it hear routeConfigurationChange; its "last in" place is kept.
    case portChanged(Port)
    /// The user chose a default device: it becomes the last in.
    case defaultDeviceChanged(PortDirection, uid: String)

    // Environment
    /// The user's volume of an output device, 0…1 as their volume control shows it (0 muted).
    case outputVolumeChanged(DeviceID, Double)
    /// The user muted or unmuted an input device: explicit sessions recording only from muted
    /// inputs are interrupted (`builtInMicMuted`) until it is back.
    case inputMuted(DeviceID, Bool)
    /// A device's data sources (its card's routes of its direction, the active one); nil: it
    /// has none any more, or is gone.
    case dataSourcesChanged(DeviceID, DeviceDataSources?)
    /// An input device's volume as its volume control shows it (0…1; nil: it has no volume
    /// control, or is gone), the user's or one the policy applied.
    case inputVolumeChanged(DeviceID, Double?)
    case silentMode(Bool)
    case screenLocked(Bool)
    case sleep
    case wake
    case recordPermissionChanged(app: String, RecordPermission)
    /// What the graph's running clock actually runs at.
    case hardwareObserved(sampleRate: Int, quantum: Int)
    /// Nothing runs: the graph has no clock to observe. Sessions are told the values it will
    /// run at (the policy's choice, else the defaults) until it runs again.
    case hardwareIdle
    /// The PipeWire daemon went away (media services lost).
    case graphLost
    /// It is back (media services reset); devices follow with `devicesEnumerated`.
    case graphRestored
}
