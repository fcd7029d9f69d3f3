/// How long enforcement waits, and how finely it steps: every delay the daemon's components
/// keep between a decision and its last effect. The daemon reads time only from its loop and
/// takes every delay from here (idle and silence: ``StreamQuietness``).
public struct EnforcementTiming: Hashable, Sendable {
    /// How long an app told of an interruption over the session API has to stop its audio
    /// itself before the daemon holds its streams.
    public var interruptionGrace: Duration
    /// How long after pressing Pause on an MPRIS player we wait to *see* its `PlaybackStatus`
    /// become Paused before holding its streams instead. WirePlumber sleeps a fixed 1000 ms;
    /// we act on the confirmation, and only a player that never confirms costs this long.
    public var playerConfirmTimeout: Duration
    /// How often a session paused over MPRIS for a lost route is checked for its players'
    /// pause, and for how long, before its streams' hold ends.
    public var routeLossPlayerCheck: Duration
    public var routeLossPlayerDeadline: Duration
    /// The step of a gain ramp the daemon carries out itself (where the server cannot ramp):
    /// 10 ms steps are below what a listener hears as steps.
    public var rampStep: Duration
    /// How long a stopping daemon waits for the players it paused to answer Play, and for the
    /// server to confirm its last restoring writes: exit is bounded, and what did not answer
    /// is undone by the next start.
    public var exitPlayersWait: Duration
    public var exitServerWait: Duration

    public init(
        interruptionGrace: Duration = .milliseconds(500), playerConfirmTimeout: Duration = .milliseconds(1000),
        routeLossPlayerCheck: Duration = .milliseconds(20), routeLossPlayerDeadline: Duration = .seconds(3),
        rampStep: Duration = .milliseconds(10), exitPlayersWait: Duration = .seconds(1),
        exitServerWait: Duration = .seconds(2)
    ) {
        self.interruptionGrace = interruptionGrace
        self.playerConfirmTimeout = playerConfirmTimeout
        self.routeLossPlayerCheck = routeLossPlayerCheck
        self.routeLossPlayerDeadline = routeLossPlayerDeadline
        self.rampStep = rampStep
        self.exitPlayersWait = exitPlayersWait
        self.exitServerWait = exitServerWait
    }

    public static let standard = EnforcementTiming()
}
