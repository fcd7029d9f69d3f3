import SessionBus

/// The names and shapes of the session API on D-Bus (see `docs/dbus-api.md`; the introspection
/// XML in `docs/org.audiosession.xml` is checked against these by SessionServiceTests).
///
/// The vtables are built from these descriptions; a test introspects the running daemon and
/// compares every member and signature with the XML, so the two cannot drift apart.
enum SessionAPI {
    static let busName = "org.audiosession.Manager1"
    static let managerPath = "/org/audiosession/Manager1"
    static let managerInterface = "org.audiosession.Manager1"
    static let sessionInterface = "org.audiosession.Session1"

    static func sessionPath(_ number: UInt64) -> String { "/org/audiosession/Session/\(number)" }

    /// A port: (uid, name, port type wire name, channels).
    static let port = "(sssu)"
    /// A route: (inputs, outputs).
    static let route = "(a\(port)a\(port))"

    static let manager = BusInterface(
        managerInterface,
        methods: [
            BusMethod("CreateSession", inputs: [BusArgument("app", "s")], outputs: [BusArgument("session", "o")]),
            BusMethod("ListSessions", outputs: [BusArgument("sessions", "aa{sv}")]),
            BusMethod("SetSilentMode", inputs: [BusArgument("on", "b")]),
            BusMethod("SetRecordPermission", inputs: [BusArgument("app", "s"), BusArgument("permission", "s")]),
            BusMethod("GetRecordPermission", inputs: [BusArgument("app", "s")], outputs: [BusArgument("permission", "s")]),
            BusMethod("ListRecordPermissions", outputs: [BusArgument("permissions", "a{ss}")]),
        ],
        properties: [
            BusProperty("SilentMode", "b"),
            BusProperty("ScreenLocked", "b"),
            BusProperty("Asleep", "b"),
            BusProperty("Rules", "a{sv}"),
            BusProperty("Linking", "s"),
            BusProperty("HeadsetSwitching", "s"),
            BusProperty("Conflicts", "as"),
            BusProperty("AudioServer", "s"),
            BusProperty("CurrentRoute", route),
            BusProperty("AvailableInputs", "a\(port)"),
            BusProperty("AvailableOutputs", "a\(port)"),
            BusProperty("Sessions", "ao"),
            BusProperty("NowPlaying", "t"),
            BusProperty("NowPlayingApp", "s"),
            BusProperty("SampleRate", "d"),
            BusProperty("IOBufferDuration", "d"),
            BusProperty("ClockRunning", "b"),
        ],
        signals: [
            BusSignalDescription("RouteChange", arguments: [BusArgument("reason", "u"), BusArgument("previous_route", route)]),
            BusSignalDescription("MediaServicesLost"),
            BusSignalDescription("MediaServicesReset"),
            BusSignalDescription("RecordPermissionRequested", arguments: [BusArgument("app", "s")]),
            BusSignalDescription("NowPlayingChanged", arguments: [BusArgument("session", "t"), BusArgument("app", "s")]),
            BusSignalDescription(
                "Decision",
                arguments: [BusArgument("session", "t"), BusArgument("kind", "s"), BusArgument("details", "a{sv}")]),
        ])

    static let session = BusInterface(
        sessionInterface,
        methods: [
            BusMethod(
                "SetCategory",
                inputs: [BusArgument("category", "s"), BusArgument("mode", "s"), BusArgument("options", "u")]),
            BusMethod("SetActive", inputs: [BusArgument("active", "b"), BusArgument("options", "u")]),
            BusMethod("SetPreferredSampleRate", inputs: [BusArgument("hz", "d")]),
            BusMethod("SetPreferredIOBufferDuration", inputs: [BusArgument("seconds", "d")]),
            BusMethod("SetPreferredInput", inputs: [BusArgument("uid", "s")]),
            BusMethod("OverrideOutputAudioPort", inputs: [BusArgument("port", "s")]),
            BusMethod("SetPreferredInputNumberOfChannels", inputs: [BusArgument("count", "u")]),
            BusMethod("SetPreferredOutputNumberOfChannels", inputs: [BusArgument("count", "u")]),
            BusMethod("SetInputGain", inputs: [BusArgument("gain", "d")]),
            BusMethod("SetInputDataSource", inputs: [BusArgument("id", "i")]),
            BusMethod("SetOutputDataSource", inputs: [BusArgument("id", "i")]),
            BusMethod("SetPrefersNoInterruptionsFromSystemAlerts", inputs: [BusArgument("prefers", "b")]),
            BusMethod("SetPrefersInterruptionOnRouteDisconnect", inputs: [BusArgument("prefers", "b")]),
            BusMethod("SetAllowHapticsAndSystemSoundsDuringRecording", inputs: [BusArgument("allow", "b")]),
            BusMethod("RequestRecordPermission", outputs: [BusArgument("granted", "b")]),
            BusMethod("Close"),
        ],
        properties: [
            BusProperty("Id", "t", changes: .constant),
            BusProperty("App", "s", changes: .constant),
            BusProperty("Label", "s", changes: .constant),
            BusProperty("Category", "s"),
            BusProperty("Mode", "s"),
            BusProperty("Options", "u"),
            BusProperty("Active", "b"),
            BusProperty("Interrupted", "b"),
            BusProperty("SampleRate", "d"),
            BusProperty("PreferredSampleRate", "d"),
            BusProperty("IOBufferDuration", "d"),
            BusProperty("PreferredIOBufferDuration", "d"),
            BusProperty("InputLatency", "d"),
            BusProperty("OutputLatency", "d"),
            BusProperty("InputNumberOfChannels", "u"),
            BusProperty("OutputNumberOfChannels", "u"),
            BusProperty("OtherAudioPlaying", "b"),
            BusProperty("SecondaryAudioShouldBeSilencedHint", "b"),
            BusProperty("RecordPermission", "s"),
            BusProperty("CurrentRoute", route),
            BusProperty("AvailableInputs", "a\(port)"),
            BusProperty("PreferredInput", "s"),
            BusProperty("IsNowPlaying", "b"),
            BusProperty("PromptStyle", "s"),
            BusProperty("OutputVolume", "d"),
            BusProperty("PreferredInputNumberOfChannels", "u"),
            BusProperty("PreferredOutputNumberOfChannels", "u"),
            BusProperty("PrefersNoInterruptionsFromSystemAlerts", "b"),
            BusProperty("PrefersInterruptionOnRouteDisconnect", "b"),
            BusProperty("AllowHapticsAndSystemSoundsDuringRecording", "b"),
            BusProperty("IsInputAvailable", "b"),
            BusProperty("MaximumInputNumberOfChannels", "u"),
            BusProperty("MaximumOutputNumberOfChannels", "u"),
            BusProperty("InputGain", "d"),
            BusProperty("IsInputGainSettable", "b"),
            BusProperty("InputMuted", "b"),
            BusProperty("InputDataSources", "a(usss)"),
            BusProperty("InputDataSource", "i"),
            BusProperty("PreferredInputDataSource", "i"),
            BusProperty("OutputDataSources", "a(usss)"),
            BusProperty("OutputDataSource", "i"),
            BusProperty("PreferredOutputDataSource", "i"),
        ],
        signals: [
            BusSignalDescription(
                "Interruption",
                arguments: [BusArgument("type", "u"), BusArgument("reason", "u"), BusArgument("options", "u")]),
            BusSignalDescription("RouteChange", arguments: [BusArgument("reason", "u"), BusArgument("previous_route", route)]),
            BusSignalDescription("SilenceSecondaryAudioHint", arguments: [BusArgument("type", "u")]),
            BusSignalDescription("RemoteCommand", arguments: [BusArgument("command", "s")]),
        ])
}
