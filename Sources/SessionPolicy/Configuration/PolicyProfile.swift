/// The two shipped behaviours (rules files may override any field of the configuration).
public enum PolicyProfile: String, CaseIterable, Hashable, Sendable, WireNamed {
    /// Desktop habits: calls interrupt media, notifications and navigation duck it, two
    /// music players may play together, games mix.
    case desktop
    /// AVAudioSession in full: a non-mixable activation interrupts every other
    /// non-mixable session of its class.
    case strict

    public var wireName: String { rawValue }
}

/// How two sessions of the same priority class interact.
public enum EqualClassRule: String, CaseIterable, Hashable, Sendable, WireNamed {
    /// Use the class's own `towardEqual` interaction (desktop: media mixes with media),
    /// plus whatever the newer session's options ask for (duckOthers, interruptSpokenAudio…).
    case classInteraction
    /// AVAudioSession's rule: the newer non-mixable session interrupts every older
    /// non-mixable one ("last activation wins"); mixable ones play along.
    case categoryRules

    public var wireName: String { rawValue }
}
