import AppProcesses
import Logging
import SessionBus
import Synchronization

/// What the bus side learns about media players, for the loop side to act on.
enum MPRISEvent: Sendable {
    case appeared(MPRISPlayer)
    case vanished(busName: String)
    case statusChanged(busName: String, PlaybackStatus)
}

/// The session-bus side of MPRIS: finds `org.mpris.MediaPlayer2.*` players as they come and
/// go, follows their `PlaybackStatus`, and presses Pause / Play. Mechanism only: it decides
/// nothing and reports everything through `deliver`, which hops to the policy loop.
///
/// All bus I/O happens on the connection's thread (SessionBus); the tasks here only await it.
final class MPRISController: Sendable {
    static let namePrefix = "org.mpris.MediaPlayer2."
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"

    let bus: BusConnection
    /// How long a player may take to answer a call: a hung player must not keep a call's
    /// interruption from being enforced (the fallback holds its streams).
    let callTimeout: Duration
    private let logger: Logger
    /// Well-known player name by owner's unique name, for routing PropertiesChanged.
    private let owners = Mutex<[String: String]>([:])
    /// Status signals seen per player: a re-read must not overwrite a newer signal.
    private let statusSignals = Mutex<[String: Int]>([:])

    init(bus: BusConnection, callTimeout: Duration = .milliseconds(700), logger: Logger) {
        self.bus = bus
        self.callTimeout = callTimeout
        self.logger = logger
    }

    /// Subscribes first and lists afterwards, so no player that appears meanwhile is missed;
    /// returns once the players present now have been reported.
    func start(_ deliver: @escaping @Sendable (MPRISEvent) -> Void) async throws {
        let nameChanges = try await bus.signals(
            sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameOwnerChanged")
        let propertyChanges = try await bus.signals(
            path: Self.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        let names = try await bus.call(
            "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListNames", timeout: callTimeout
        ).first?.arrayValue?.compactMap(\.stringValue) ?? []
        for name in names.sorted() where Self.isOtherPlayer(name) {
            if let player = await describe(name) { deliver(.appeared(player)) }
        }
        // The tasks hold the controller: it lives as long as its bus connection.
        Task {
            for await signal in nameChanges { await self.nameOwnerChanged(signal.arguments, deliver) }
        }
        Task {
            for await signal in propertyChanges { await self.propertiesChanged(signal, deliver) }
        }
    }

    /// A media player's name, other than our own now-playing player's.
    static func isOtherPlayer(_ name: String) -> Bool {
        name.hasPrefix(namePrefix) && name != NowPlayingPlayer.busName
    }

    /// `Pause` (or `Play`) on one player; throws on an error reply or after `callTimeout`.
    func press(_ member: String, on busName: String) async throws {
        _ = try await bus.call(
            busName, path: Self.objectPath, interface: Self.playerInterface, member: member, timeout: callTimeout)
    }

    // MARK: - Bus signals

    private func nameOwnerChanged(_ arguments: [BusValue], _ deliver: @Sendable (MPRISEvent) -> Void) async {
        guard arguments.count == 3, let name = arguments[0].stringValue, Self.isOtherPlayer(name),
            let oldOwner = arguments[1].stringValue, let newOwner = arguments[2].stringValue
        else { return }
        if !oldOwner.isEmpty {
            owners.withLock { $0[oldOwner] = nil }
            statusSignals.withLock { $0[name] = nil }
            deliver(.vanished(busName: name))
        }
        if !newOwner.isEmpty, let player = await describe(name, owner: newOwner) {
            deliver(.appeared(player))
            // A new player often changes status right away (mpv-mpris: Stopped while it loads,
            // then Playing); a signal that raced the appearance may have been dropped as coming
            // from a player not known yet. Read once more, now that it is known.
            let seen = statusSignals.withLock { $0[name, default: 0] }
            if let status = await status(of: name), status != player.status,
                statusSignals.withLock({ $0[name, default: 0] }) == seen
            {
                deliver(.statusChanged(busName: name, status))
            }
        }
    }

    private func propertiesChanged(_ signal: BusSignal, _ deliver: @Sendable (MPRISEvent) -> Void) async {
        guard signal.arguments.count >= 2, signal.arguments[0].stringValue == Self.playerInterface,
            let busName = owners.withLock({ $0[signal.sender] })
        else { return }
        if let status = signal.arguments[1].dictionaryValue?["PlaybackStatus"]?.stringValue {
            statusSignals.withLock { $0[busName, default: 0] += 1 }
            deliver(.statusChanged(busName: busName, PlaybackStatus(wire: status)))
        } else if signal.arguments.count >= 3,
            signal.arguments[2].arrayValue?.contains(.string("PlaybackStatus")) == true,
            let status = await status(of: busName)
        {
            deliver(.statusChanged(busName: busName, status))
        }
    }

    // MARK: - Queries

    /// Owner, pid, Flatpak app and status of a player; nil if it went away meanwhile.
    private func describe(_ busName: String, owner knownOwner: String? = nil) async -> MPRISPlayer? {
        do {
            let owner: String
            if let knownOwner {
                owner = knownOwner
            } else {
                owner = try await callBusDaemon("GetNameOwner", busName).first?.stringValue ?? ""
            }
            guard !owner.isEmpty else { return nil }
            owners.withLock { $0[owner] = busName }
            let pid = try? await callBusDaemon("GetConnectionUnixProcessID", busName).first?.uint32Value
            let processID = pid.map { Int32(bitPattern: $0) }
            let status = await status(of: busName) ?? .stopped
            let player = MPRISPlayer(
                busName: busName, uniqueName: owner, processID: processID,
                flatpakAppID: processID.flatMap { FlatpakAppID.of($0) }, status: status)
            logger.info("MPRIS player \(busName) (pid \(processID.map(String.init) ?? "?")\(player.flatpakAppID.map { ", app \($0)" } ?? "")): \(status.rawValue)")
            return player
        } catch {
            logger.debug("MPRIS player \(busName) went away before we knew it: \(error)")
            return nil
        }
    }

    private func status(of busName: String) async -> PlaybackStatus? {
        guard let value = try? await bus.property(
            "PlaybackStatus", of: Self.playerInterface, at: Self.objectPath, on: busName, timeout: callTimeout),
            let text = value.stringValue
        else { return nil }
        return PlaybackStatus(wire: text)
    }

    private func callBusDaemon(_ member: String, _ name: String) async throws -> [BusValue] {
        try await bus.call(
            "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: member,
            [.string(name)], timeout: callTimeout)
    }
}
