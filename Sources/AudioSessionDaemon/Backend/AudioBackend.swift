import SessionPolicy

/// The daemon's view of an audio server: what the policy needs to observe, and the actions
/// that carry out its decisions. PipeWire implements it today; a libpulse backend can
/// implement the same protocol and feed the same engine.
///
/// Every call happens on the daemon's loop (``DaemonLoop``), and the backend delivers its
/// events there too, so the coordinator needs no locks.
protocol AudioBackend: AnyObject, Sendable {
    // MARK: Raw reads and writes: what enforcement (Enforcement/) builds on

    /// The volume enforcement moves (``OurVolumeFactor``): on PipeWire our own gain over the
    /// user's volume (``SoftShare``: 1 where we set none); on PulseAudio the stream's volume as
    /// the server reports it now. Nil when the stream is gone, or when a write would not hold
    /// yet (PipeWire: before its Props are known and its ports configured).
    func volume(of stream: StreamID) -> Float?
    /// Whether the stream's user (or app) muted it; nil when it is gone.
    func isMuted(_ stream: StreamID) -> Bool?
    /// The stream's identity that is never reused (PipeWire `object.serial`): what the journal
    /// matches after a crash, when ids may belong to other streams. Nil when it is gone.
    func identity(of stream: StreamID) -> UInt64?
    /// What the server is forced to run at now (nil: its own choice).
    var forcedQuantum: Int? { get }
    var forcedSampleRate: Int? { get }
    /// Sets the stream's volume at once (fades are stepped by ``GainEnforcement``).
    func writeVolume(_ volume: Float, of stream: StreamID)
    func writeMute(_ muted: Bool, of stream: StreamID)
    /// Forces the server's quantum (frames) or sample rate; nil: back to the server's choice.
    func forceQuantum(_ frames: Int?)
    func forceSampleRate(_ hertz: Int?)
    /// An input device's volume as its volume control shows it (0…1, its loudest channel);
    /// nil when it has no volume control or is gone.
    func inputVolume(of device: DeviceID) -> Double?
    /// Sets an input device's loudest channel to `volume` (its volume control's scale), the
    /// others in proportion: the user's balance is kept.
    func writeInputVolume(_ volume: Double, of device: DeviceID)
    /// An input device's per-channel volumes exactly as the server keeps them (PipeWire: linear
    /// factors; PulseAudio: its integer volumes), to be given back exactly.
    func inputChannelLevels(of device: DeviceID) -> [Double]?
    func writeInputChannelLevels(_ levels: [Double], of device: DeviceID)
    /// The route (data source) a device's card has active for it now; nil for a device without
    /// routes.
    func selectedDataSource(of device: DeviceID) -> UInt32?
    /// Makes one of the device's data sources its card's active route (not saved as the user's).
    func selectDataSource(_ source: UInt32, of device: DeviceID)
    /// A device's name that survives restarts (PipeWire `node.name`, a PulseAudio source's
    /// name): what the journal keeps, since numbers are reused.
    func name(of device: DeviceID) -> String?
    func device(named name: String) -> DeviceID?
    /// A headset's active profile (its `EnumProfile` index), by `Port.deviceID`; nil for no
    /// headset, or one gone.
    func activeProfile(ofHeadset device: String) -> Int?
    /// The headset's best profile of this kind that can be chosen now, by index.
    func profileIndex(_ profile: HeadsetProfile, ofHeadset device: String) -> Int?
    /// Switches a headset's profile (not saved as its user's choice).
    func selectProfile(_ index: Int, ofHeadset device: String)

    // MARK: Links, levels, what the backend can do

    /// Stops a stream's audio by taking it off its device (PipeWire: unlink; it freezes).
    func hold(_ stream: StreamID)
    /// Puts a held stream back on its device.
    func release(_ stream: StreamID)
    /// Takes streams off their devices ahead of the stream `trigger`, announced and not yet
    /// described (``BackendEvent/streamAnnounced(_:mayStartPaused:)``): once it has appeared and been judged,
    /// those the policy does not hold by then go back.
    func holdAhead(_ streams: [StreamID], until trigger: StreamID)
    /// Holds asked while the backend handles a server event wait to be sent at its end: the
    /// coordinator then leaves the rest of that event's decisions for the loop's next turn, so
    /// the silence goes out first (PipeWire's client sends nothing until the event is handled).
    var holdsWaiting: Bool { get }
    /// Links a stream to exactly these device nodes (its session's route: one output, or every
    /// output of a multiRoute session), unless the stream or a mixer named its own target.
    func route(_ stream: StreamID, to devices: [DeviceID])
    /// The devices a session with no wishes is routed to now (last in wins): what the backend
    /// publishes as the effective defaults, so other clients see where audio goes.
    func preferDefaultDevices(output: DeviceID?, input: DeviceID?)
    /// The device a stream plays on because it (or a mixer) named it, while that device exists;
    /// nil when it follows its session's route (or the backend does not link).
    func pinnedDevice(of stream: StreamID) -> DeviceID?
    /// The rules' port types (`audiosession.port-rules`): consulted before the backend's own
    /// typing for sinks and sources that appear from now on.
    func usePortTypeRule(_ rule: @escaping @Sendable ([String: String]) -> PortType?)
    /// Starts reporting whether a playback stream is audible (``BackendEvent/streamAudible(_:_:)``,
    /// on changes only), its peak compared with `threshold` (linear). False when the backend
    /// cannot: the stream is then judged by whether it runs.
    func watchLevel(of stream: StreamID, threshold: Float) -> Bool
    func stopWatchingLevel(of stream: StreamID)
    /// How this backend can stop a stream's audio for an app that has no session API.
    var interruptionMethods: Set<InterruptionMethod> { get }
    /// Links streams to devices (and provides the `default` metadata), or leaves that to
    /// another session manager and takes back the links it made (``Coexistence``). While it
    /// links, it gives devices their ports too when `configuringDevicePorts` (no other session
    /// manager does).
    func setLinking(_ links: Bool, configuringDevicePorts: Bool)
    /// Withdraws the `default` metadata this backend provided while it linked, if it did; the
    /// policy says when (``Coexistence/mayWithdrawDefaultMetadata()``).
    func withdrawDefaultMetadata()
    /// Why this backend never links streams (the server routes every stream itself), or nil
    /// where linking follows ``Coexistence``.
    var routesItself: String? { get }
    /// Why this backend never switches headsets' profiles (the server does it itself), or nil
    /// where the policy decides (``PolicyEngine/headsetSwitching``).
    var switchesHeadsetsItself: String? { get }
}

extension AudioBackend {
    func activeProfile(ofHeadset device: String) -> Int? { nil }
    func profileIndex(_ profile: HeadsetProfile, ofHeadset device: String) -> Int? { nil }
    func selectProfile(_ index: Int, ofHeadset device: String) {}
    var routesItself: String? { nil }
    var switchesHeadsetsItself: String? { nil }
    var holdsWaiting: Bool { false }
    func holdAhead(_ streams: [StreamID], until trigger: StreamID) {}
}

/// What happened on the audio server, in the policy's terms.
enum BackendEvent: Sendable {
    /// The server is there and this is all of it (first attach, or back after a restart).
    case attached(streams: [BackendStream], ports: [Port], defaultOutput: String?, defaultInput: String?)
    /// The server went away: every stream and device is gone (media services lost).
    case lost
    /// A stream the server has just announced, a round-trip before its description: only the
    /// few properties its announcement carries, its state unknown. ``streamAppeared(_:)`` follows
    /// (or nothing, if it goes first). `mayStartPaused`: its app's API can create a stream
    /// paused (pulse's `PA_STREAM_START_CORKED`), which the announcement cannot show.
    case streamAnnounced(BackendStream, mayStartPaused: Bool)
    case streamAppeared(BackendStream)
    case streamChanged(BackendStream)
    case streamRemoved(StreamID)
    case portAppeared(Port)
    case portRemoved(uid: String)
    /// The port's sink or source went while its device stays: the device is switching profile
    /// (a headset to HFP, a card to HDMI), and its new ports are coming.
    case portLeftWithProfile(uid: String)
    /// A device's active profile (by `Port.deviceID`), by name, and whether its user saved it
    /// as their choice: when first read and when it changes.
    case deviceProfileChanged(device: String, profile: String, saved: Bool)
    /// A Bluetooth headset's profiles, by `Port.deviceID`, while the daemon may switch them
    /// (it links: no other session manager does); nil: gone, or no longer ours to switch.
    case headsetProfilesChanged(device: String, HeadsetProfiles?)
    /// A device route's availability flipped (a headphone jack); the port stays known.
    case portAvailabilityChanged(uid: String, available: Bool)
    /// A known port's description changed (its type, name or channel count).
    case portChanged(Port)
    case defaultChanged(PortDirection, uid: String)
    /// The server would not take a held stream off its device (PulseAudio: a stream created
    /// with `PA_STREAM_DONT_MOVE`): it plays on, and the backend no longer counts it as held.
    case holdRefused(StreamID)
    /// An output device's volume as its user's volume control shows it (0…1, 0 when muted):
    /// reported when first seen and when it changes.
    case outputVolumeChanged(DeviceID, Double)
    /// An input device's mute, as its user set it: reported when it changes (and muted ones
    /// when first seen; a muted one that goes is reported unmuted).
    case inputMuted(DeviceID, Bool)
    /// A device's data sources (its card's routes), reported when first seen and when they
    /// change (nil: it has none any more, or went away).
    case dataSourcesChanged(DeviceID, DeviceDataSources?)
    /// An input device's volume (``AudioBackend/inputVolume(of:)``), reported when first seen
    /// and when it changes (nil: it has no volume control, or went away).
    case inputVolumeChanged(DeviceID, Double?)
    /// A watched stream became audible, or silent (``AudioBackend/watchLevel(of:threshold:)``).
    case streamAudible(StreamID, Bool)
    /// A stream's volume as the server reports it (on every report, ours included): how
    /// enforcement tells its own writes from its user's.
    case volumeReported(StreamID, Float)
    /// What the graph is configured to run at and what it accepts (PipeWire: the `settings`
    /// metadata).
    case hardware(GraphHardware)
    /// What the graph's clock actually runs at, when it may have changed; nil: nothing runs,
    /// there is no clock to observe.
    case clockObserved(RunningClock?)
    /// The server's other clients (not the daemon's own), when they changed: who else may
    /// manage the graph.
    case peersChanged([GraphPeer])
    /// Another session manager's setting for switching headsets to their call profile when
    /// their microphone is captured (WirePlumber 0.5's `bluetooth.autoswitch-to-headset-profile`
    /// in its `sm-settings` metadata); nil: none said.
    case headsetAutoswitchChanged(Bool?)
    /// A stream plays through another session manager's role-based policy node (WirePlumber's
    /// role loopbacks, `policy.role-based.target`).
    case rolePolicySeen(stream: String, target: String)
}

/// The graph's clock as the audio server configures it: default values and the allowed ranges,
/// so the policy only ever forces what the hardware takes and reports the rest.
struct GraphHardware: Hashable, Sendable {
    var sampleRate: Int
    var quantum: Int
    var allowedSampleRates: [Int]
    var quantumRange: ClosedRange<Int>
}

/// What a running graph's clock actually runs at (PipeWire: the driver of the default output,
/// sampled from the profiler; PulseAudio: the default sink's rate and configured latency).
struct RunningClock: Hashable, Sendable, CustomStringConvertible {
    var sampleRate: Int
    /// Frames per cycle.
    var quantum: Int

    var description: String { "\(sampleRate) Hz, quantum \(quantum)" }
}

/// One application stream as any backend sees it.
struct BackendStream: Hashable, Sendable {
    /// Which way it flows, and the backend's number for it.
    var id: StreamID
    /// The app connection it belongs to (PipeWire client id, pulse client index).
    var client: UInt32
    /// That connection's number for as long as the server runs (PipeWire `object.serial`, pulse
    /// client index; a client id is reused): a connection's process never changes, so the
    /// process read for one of its streams holds for the next ones.
    var connectionSerial: UInt64? = nil
    /// The stream's own properties over its client's: what rules match on.
    var properties: [String: String]
    var activity: StreamActivity
    /// Who it is, for logs, permission and "someone else": the app name or binary.
    var appName: String
    var processID: Int32?
    /// The sandbox's app id the server vouches for (PipeWire's portal check), if any.
    var sandboxAppID: String? = nil
    /// The pid the stream itself states, when its connection has none (``processID``).
    var statedProcessID: Int32? = nil
    /// The buffer and rate the app asked for on the stream, if it did.
    var hardwareRequest: StreamHardwareRequest? = nil
    /// The explicit session the stream names as its own (`audiosessionctl run` and the library
    /// set it in the stream's properties: `PIPEWIRE_PROPS`, `PULSE_PROP`).
    var namedSession: UInt64? = nil
    /// A capture of what plays (a sink's monitor), not of a microphone.
    var capturesMonitor: Bool = false

    var direction: StreamDirection { id.direction }
}

/// Whether a stream is producing or consuming audio, as far as the server can tell.
enum StreamActivity: String, Hashable, Sendable {
    /// Running.
    case playing
    /// Its app or user paused it (pulse `pulse.corked`): a deliberate pause, not an interruption.
    case pausedByUser
    /// Exists but does not run (not yet linked, or stopped by its app).
    case idle
}
