import Logging
import SessionBus
import SessionPolicy

/// `org.mpris.MediaPlayer2.audiosession`: one MPRIS player for the media keys and headset
/// buttons, which forwards each control to the current media player — the session the engine
/// says is now playing (``PolicyEngine/nowPlaying``) — so the keys reach the app that holds the
/// audio, not whichever player spoke last (the HIG's rule, which MPRIS clients such as
/// `playerctl` or a desktop's media-key daemon cannot know on their own).
///
/// An app with MPRIS gets the same method on its own player; an explicit session (the session
/// API) gets a `RemoteCommand` signal. Mechanism only: who is now playing is the engine's.
///
/// It is told the current media player (``NowPlaying``) after every step that changed it, and
/// asks for it when a control comes (its players may have come or gone since). Calls arrive on
/// the bus thread and are handled on the daemon's loop, where its state lives.
final class NowPlayingPlayer: Sendable {
    static let busName = MPRISController.namePrefix + "audiosession"
    static let rootInterface = "org.mpris.MediaPlayer2"
    /// The controls forwarded as they are (MPRIS method names).
    static let forwarded: Set<String> = ["Play", "Pause", "PlayPause", "Stop", "Next", "Previous"]

    static let root = BusInterface(
        rootInterface,
        methods: [BusMethod("Raise"), BusMethod("Quit")],
        properties: [
            BusProperty("CanQuit", "b", changes: .constant), BusProperty("CanRaise", "b", changes: .constant),
            BusProperty("HasTrackList", "b", changes: .constant), BusProperty("Identity", "s", changes: .constant),
            BusProperty("SupportedUriSchemes", "as", changes: .constant),
            BusProperty("SupportedMimeTypes", "as", changes: .constant),
        ])

    static let player = BusInterface(
        MPRISController.playerInterface,
        methods: [
            BusMethod("Next"), BusMethod("Previous"), BusMethod("Pause"), BusMethod("PlayPause"), BusMethod("Stop"),
            BusMethod("Play"), BusMethod("Seek", inputs: [BusArgument("Offset", "x")]),
            BusMethod("SetPosition", inputs: [BusArgument("TrackId", "o"), BusArgument("Position", "x")]),
            BusMethod("OpenUri", inputs: [BusArgument("Uri", "s")]),
        ],
        properties: [
            BusProperty("PlaybackStatus", "s"), BusProperty("Rate", "d"), BusProperty("Metadata", "a{sv}"),
            BusProperty("Volume", "d"), BusProperty("Position", "x", changes: .invalidates),
            BusProperty("MinimumRate", "d", changes: .constant), BusProperty("MaximumRate", "d", changes: .constant),
            BusProperty("CanGoNext", "b"), BusProperty("CanGoPrevious", "b"), BusProperty("CanPlay", "b"),
            BusProperty("CanPause", "b"), BusProperty("CanSeek", "b"), BusProperty("CanControl", "b", changes: .constant),
        ],
        signals: [BusSignalDescription("Seeked", arguments: [BusArgument("Position", "x")])])

    private let bus: BusConnection
    private let buttons: MPRISButtons
    private let loop: DaemonLoop
    private let controls: Controls
    private let logger: Logger
    /// The exported player, wired once as it starts (before the loop hears of it).
    private let object = WiredOnce<BusObject?>(fallback: nil)

    /// Where a media control goes, asked on the loop as it comes.
    struct Controls: Sendable {
        /// The current media player now.
        var current: @Sendable () -> NowPlaying
        /// Hands a control to an explicit session's app (its `RemoteCommand` signal); false when
        /// the session is not one.
        var remoteCommand: @Sendable (String, SessionID) -> Bool
    }

    private init(bus: BusConnection, buttons: MPRISButtons, loop: DaemonLoop, controls: Controls, logger: Logger) {
        self.bus = bus
        self.buttons = buttons
        self.loop = loop
        self.controls = controls
        self.logger = logger
    }

    /// Serves the player on `bus` and takes its name; nil (after one log line) when it cannot.
    /// It shows no media player until it is told one (``show(_:)``).
    static func start(
        bus: BusConnection, buttons: MPRISButtons, loop: DaemonLoop, controls: Controls, logger: Logger
    ) async -> NowPlayingPlayer? {
        let player = NowPlayingPlayer(bus: bus, buttons: buttons, loop: loop, controls: controls, logger: logger)
        do {
            player.object.wire(try bus.export(
                path: MPRISController.objectPath, interfaces: [root, Self.player],
                properties: [
                    rootInterface: rootProperties,
                    MPRISController.playerInterface: Self.playerProperties(of: .none).merging(constantPlayerProperties) { $1 },
                ]
            ) { [weak player] call in player?.receive(call) })
            try await bus.requestName(busName)
        } catch {
            logger.warning("cannot serve \(busName) (\(error)): media keys reach players directly")
            player.object.value?.remove()
            return nil
        }
        logger.info("serving \(busName): media controls go to the current media player")
        return player
    }

    private static let constantPlayerProperties: [String: BusValue] = [
        "MinimumRate": .double(1), "MaximumRate": .double(1), "CanControl": .bool(true),
    ]

    private static let rootProperties: [String: BusValue] = [
        "CanQuit": .bool(false), "CanRaise": .bool(false), "HasTrackList": .bool(false),
        "Identity": .string("audiosession (the current media player)"),
        "SupportedUriSchemes": .strings([]), "SupportedMimeTypes": .strings([]),
    ]

    /// Bus thread: to the loop.
    private func receive(_ call: BusCall) {
        loop.perform { [self] in handle(call) }
    }

    private func handle(_ call: BusCall) {
        switch (call.interface, call.member) {
        case (Self.rootInterface, _):
            call.reply()  // Raise, Quit: nothing to raise, never quits
        case (_, let member) where Self.forwarded.contains(member):
            forward(member, call)
        default:
            call.fail(BusError(name: "org.freedesktop.DBus.Error.NotSupported", message: "\(call.member) is not forwarded"))
        }
    }

    /// Sends the control to the current media player and answers once it did.
    private func forward(_ member: String, _ call: BusCall) {
        let nowPlaying = controls.current()
        guard let id = nowPlaying.session else {
            logger.info("media control \(member): no current media player")
            return call.fail(BusError(name: Self.busName + ".NoPlayer", message: "no app is the current media player"))
        }
        let app = nowPlaying.app ?? "?"
        if controls.remoteCommand(member, id) {
            logger.info("media control \(member) → \(id) '\(app)' (RemoteCommand)")
            return call.reply()
        }
        let names = nowPlaying.playerNames.filter { $0 != Self.busName }
        guard !names.isEmpty else {
            logger.info("media control \(member): \(id) '\(app)' has no MPRIS player")
            return call.fail(BusError(name: Self.busName + ".NoPlayer", message: "the current media player, \(app), takes no media controls"))
        }
        logger.info("media control \(member) → \(id) '\(app)' (\(names.joined(separator: ", ")))")
        let buttons = self.buttons
        Task {
            var failure: Error?
            for name in names {
                do { try await buttons.press(member, on: name) } catch { failure = error }
            }
            if let failure, names.count == 1 {
                call.fail(BusError(name: Self.busName + ".Failed", message: "\(names[0]) did not answer \(member): \(failure)"))
            } else {
                call.reply()
            }
        }
    }

    /// Shows `nowPlaying` as the current media player (after each step that changed it, and
    /// when a player's status changed).
    func show(_ nowPlaying: NowPlaying) {
        guard let object = object.value else { return }
        do {
            try object.setProperties(Self.playerProperties(of: nowPlaying), of: MPRISController.playerInterface)
        } catch {
            logger.warning("\(Self.busName): cannot update its properties: \(error)")
        }
    }

    /// The player's properties that change, for the current media player.
    private static func playerProperties(of nowPlaying: NowPlaying) -> [String: BusValue] {
        var metadata: [String: BusValue] = ["mpris:trackid": .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack")]
        if let id = nowPlaying.session, let app = nowPlaying.app {
            metadata["mpris:trackid"] = .objectPath("/org/audiosession/NowPlaying/\(id.rawValue)")
            metadata["xesam:title"] = .string(app)
        }
        let controllable = nowPlaying.app != nil
        return [
            "PlaybackStatus": .string(nowPlaying.status), "Rate": .double(1), "Metadata": .dictionary(metadata), "Volume": .double(1),
            "Position": .int64(0), "CanGoNext": .bool(controllable), "CanGoPrevious": .bool(controllable),
            "CanPlay": .bool(controllable), "CanPause": .bool(controllable), "CanSeek": .bool(false),
        ]
    }
}
