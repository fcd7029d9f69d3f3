/// What an explicit session asks of the system beyond its category: AVAudioSession's
/// `setPrefersNoInterruptionsFromSystemAlerts`, `setPrefersInterruptionOnRouteDisconnect` and
/// `setAllowHapticsAndSystemSoundsDuringRecording`, with AVAudioSession's defaults.
public struct SessionPreferences: Hashable, Sendable {
    /// Notification sounds (system alerts) neither duck nor interrupt it: a recording or a
    /// performance is not disturbed by a chime.
    public var prefersNoInterruptionsFromSystemAlerts: Bool
    /// When it is the current media player and its output goes away, it is interrupted
    /// (`routeDisconnected`, its streams held until it activates again) rather than only told
    /// the route changed. On by default, as on iOS 17.
    public var prefersInterruptionOnRouteDisconnect: Bool
    /// Notification sounds still play while it records; by default they are silenced then.
    public var allowsSystemSoundsDuringRecording: Bool

    public init(
        prefersNoInterruptionsFromSystemAlerts: Bool = false, prefersInterruptionOnRouteDisconnect: Bool = true,
        allowsSystemSoundsDuringRecording: Bool = false
    ) {
        self.prefersNoInterruptionsFromSystemAlerts = prefersNoInterruptionsFromSystemAlerts
        self.prefersInterruptionOnRouteDisconnect = prefersInterruptionOnRouteDisconnect
        self.allowsSystemSoundsDuringRecording = allowsSystemSoundsDuringRecording
    }

    public static let `default` = SessionPreferences()
}
