import SessionPolicy

/// What the policy currently imposes on one session, so the same effect reaches every stream
/// of it, including streams that appear later.
struct SessionEffects: Equatable {
    /// How the session is interrupted now, if it is.
    var interruption: InterruptionMethod?
    /// An app told of its interruption over the session API had its grace and is held anyway.
    var enforcedAfterGrace = false
    /// Our duck factor (1.0 = not ducked).
    var duckGain: Double = 1.0
    /// Silent mode / screen lock silences it.
    var silenced = false
    /// Its capture records silence (record permission).
    var captureSilenced = false
    /// Its output went away and it was paused for that (pause on unplug), and how its audio is
    /// stopped meanwhile: held (unlink, and MPRIS until the player confirms) or muted (without
    /// linking, `--no-linking`). Until the session is active again (its user plays it).
    var routeLoss: InterruptionMethod?
    var pausedForRouteLoss: Bool { routeLoss != nil }

    /// The factor a stream of this session plays or records at.
    func gain(for direction: StreamDirection) -> Double {
        switch direction {
        case .playback: silenced ? 0 : duckGain
        case .capture: captureSilenced ? 0 : 1
        }
    }

    var isHeld: Bool {
        interruption == .unlink || (interruption == .sessionAPI && enforcedAfterGrace) || routeLoss == .unlink
    }
    /// Its player paused over MPRIS for an interruption: its streams idle because we paused
    /// it, not because it stopped; the end of the interruption plays it again.
    var isPausedForInterruption: Bool { interruption == .mpris }
    /// A player asked over MPRIS to pause after its output went away is muted meanwhile, not
    /// unlinked: an unlinked pulse stream may never complete the player's own cork, and the
    /// player (mpv) then hangs in it instead of pausing.
    var isMuted: Bool { interruption == .mute || routeLoss == .mute || routeLoss == .mpris }
}
