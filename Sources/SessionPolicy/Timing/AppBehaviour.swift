/// How long an app the rules say nothing about takes to show what it is.
///
/// Such an app is judged by what its streams do (``AppComposition``), and that needs a moment:
/// a call app opens its speaker and its microphone a few hundred milliseconds apart, in either
/// order, and a player plays for longer than a beep.
public struct AppBehaviour: Hashable, Sendable {
    /// How long after its session appears an app the rules do not classify is spared from
    /// interruption (``PolicyConfiguration/sparesOpeningApps``): long enough for a call app to
    /// open its other stream, so neither end of a call is held by the other end's call. A
    /// player started during a call plays this long before the call holds it.
    public var openingWindow: Duration
    /// How long a role-less playback stream may run and still be a short sound (a beep, a
    /// notification): one that runs longer is media playback, which silent mode leaves alone.
    public var shortSoundLimit: Duration
    /// How long an app that was a call stays one after it stops playing or capturing while
    /// another of its streams still runs (``AppComposition/holdsOver(from:to:streams:)``): a
    /// call app that opens its speaker or microphone again mid-call (linphonec does) is a
    /// recorder for that moment, and the music its call paused must not play in between.
    public var callHoldover: Duration

    public init(
        openingWindow: Duration = .milliseconds(1000), shortSoundLimit: Duration = .milliseconds(2000),
        callHoldover: Duration = .milliseconds(1000)
    ) {
        self.openingWindow = openingWindow
        self.shortSoundLimit = shortSoundLimit
        self.callHoldover = callHoldover
    }

    public static let standard = AppBehaviour()
}
