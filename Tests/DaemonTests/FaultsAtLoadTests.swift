import Foundation
import PipeWireGraph
import PipeWireSandbox
import Testing

/// Nothing left behind at load: 50 streams play — music held by a call, ambience ducked by an
/// announcement mid-ramp, a low-latency stream forcing the quantum and the rate, two mpv players
/// paused over MPRIS, some volumes the user set — when the daemon or PipeWire is SIGKILLed, also
/// in the middle of a rules reload. After each, with the daemon running again: every stream's
/// volume is its user's, every stream plays on a device, the settings metadata is clean and the
/// players play. Real pw-cat, paplay (pipewire-pulse) and mpv (mpv-mpris) on a private bus.
@Suite("Faults at load: 50 streams, nothing left behind", .serialized)
struct FaultsAtLoadTests {
    typealias Rig = MPRISInterruptionTests.Rig

    enum Fault: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case daemonKilled, pipeWireKilled, daemonKilledDuringReload, pipeWireKilledDuringReload
        var testDescription: String { rawValue }
        var killsPipeWire: Bool { self == .pipeWireKilled || self == .pipeWireKilledDuringReload }
        var duringReload: Bool { self == .daemonKilledDuringReload || self == .pipeWireKilledDuringReload }
    }

    /// Two classes the shipped rules do not have, so that holds and ducks coexist: the call
    /// (communication) interrupts media, and an announcement above it ducks everything, the
    /// ambience the call spares included. A slow duck ramp, so that a fault lands mid-ramp.
    static let rules = """
        audiosession.settings = { duck.ramp-ms = 4000 }
        audiosession.classes = {
            ambience     = { priority = 60  toward-lower = mix   toward-equal = mix }
            announcement = { priority = 70  toward-lower = duck  toward-equal = mix }
        }
        audiosession.rules = [
            { matches = [ { media.role = "Ambience" } ]
              actions = { classify = { category = ambient  class = ambience } } }
            { matches = [ { media.role = "Announcement" } ]
              actions = { classify = { category = playback  options = [ duckOthers ]  class = announcement } } }
        ]
        """

    /// The edit a reload applies: a deeper duck, re-written on every ducked stream.
    static let reloadedRules = "audiosession.settings = { duck.level = 0.5 }\n"

    static let musicCount = 25, ambienceCount = 15, pulseCount = 5, playerCount = 2
    /// Every stream of the load: the players', music, ambience, the low-latency one, paplay's,
    /// the call and the announcement.
    static let streamCount = playerCount + musicCount + ambienceCount + 1 + pulseCount + 2

    /// A stream's volume as its user left it: what must be there after every fault.
    struct Volume: Equatable, CustomStringConvertible {
        var volume: Float?
        var channels: [Float]
        /// Our share (soft volumes over the channel volumes, soft mute over the user's mute).
        var softFactor: Float
        var softMuted: Bool
        init(_ props: NodeProps?) {
            volume = props?.volume
            channels = props?.channelVolumes ?? []
            softFactor = props?.softFactor ?? 1
            softMuted = props.map { $0.softMute == true && $0.mute != true } ?? false
        }
        var description: String { "\(volume.map { "\($0)" } ?? "-") \(channels) soft ×\(softFactor)\(softMuted ? " muted" : "")" }

        /// No channel volumes is every channel at unity: PipeWire 1.6 reports none for a pulse
        /// stream (paplay) until someone writes its Props, and [1.0, 1.0] from then on.
        static func == (a: Volume, b: Volume) -> Bool {
            func sameChannels(_ x: [Float], _ y: [Float]) -> Bool {
                if x.isEmpty { return y.allSatisfy { $0 == 1 } }
                if y.isEmpty { return x.allSatisfy { $0 == 1 } }
                return x == y
            }
            return a.volume == b.volume && sameChannels(a.channels, b.channels) && a.softFactor == b.softFactor
                && a.softMuted == b.softMuted
        }
    }

    /// What the checks looked at, printed for the record.
    struct Checked {
        var volumes = 0, links = 0, settings = 0, players = 0
    }

    @Test(arguments: Fault.allCases)
    func nothingIsLeftBehind(after fault: Fault) async throws {
        let rig = try await Rig(prepare: { sandbox in
            let directory = sandbox.directory.appendingPathComponent("config/audiosession/policy-rules.d")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Self.rules.write(to: directory.appendingPathComponent("50-load.conf"), atomically: true, encoding: .utf8)
        }).ready()
        defer { rig.stop() }
        let sandbox = rig.sandbox
        let watcher = try VolumeWatcher(sandbox)

        // The load, apart from the call and the announcement.
        for _ in 0..<Self.playerCount { _ = try rig.startPlayer() }
        for index in 1...Self.musicCount {
            try sandbox.play(role: "Music", file: rig.tone, extraArguments: ["-P", "{ node.name = music-\(index) }"])
        }
        for index in 1...Self.ambienceCount {
            try sandbox.play(role: "Ambience", file: rig.tone, extraArguments: ["-P", "{ node.name = ambience-\(index) }"])
        }
        // PIPEWIRE_PROPS: pw-cat sets node.rate from the file over its own -P.
        let lowLatency = try sandbox.spawn(
            "pw-cat", ["-p", "--media-role", "Ambience", "--latency", "256", rig.tone.path],
            extraEnvironment: ["PIPEWIRE_PROPS": "{ node.name = low-latency node.rate = 1/96000 }"])
        for _ in 0..<Self.pulseCount { try sandbox.paplay(role: "Ambience", file: rig.tone) }
        let playing = Self.streamCount - 2
        try await waitUntil(timeout: .seconds(30), "\(playing) streams play (now \(Self.linkedStreams(watcher).count))") {
            () async -> Bool in Self.linkedStreams(watcher).count == playing
        }
        try await rig.waitForSessionsWithPlayers(Self.playerCount)
        try await waitUntil(timeout: .seconds(10), "both players are Playing (\(Self.players(rig)))") { () async -> Bool in
            Self.players(rig).values.filter { $0 == "Playing" }.count == Self.playerCount
        }
        // 256 frames at the file's 48 kHz: 512 at the 96 kHz it forces.
        try await waitUntil(timeout: .seconds(10), "the low-latency stream forces 512 frames at 96 kHz (\(Self.forced(watcher)))") {
            () async -> Bool in Self.forced(watcher) == ["512", "96000"]
        }

        // The user's own volumes on some streams, set as a mixer does (pactl, through pipewire-pulse).
        let snapshot = watcher.graph.snapshot
        let chosen = snapshot.nodes.values.filter(\.isPlaybackStream).sorted { $0.id < $1.id }.enumerated()
            .filter { $0.offset % 7 == 3 }.map(\.element)
        for node in chosen {
            _ = try sandbox.run("pactl", ["set-sink-input-volume", "\(node.serial.map { "\($0)" } ?? "\(node.id)")", "80%"])
        }
        try await waitUntil(timeout: .seconds(10), "the user's volumes are set") { () async -> Bool in
            chosen.allSatisfy { (watcher.graph.snapshot.nodes[$0.id]?.props?.channelVolumes.first ?? 1) < 1 }
        }
        let user = Dictionary(uniqueKeysWithValues: watcher.graph.snapshot.nodes.values.filter(\.isPlaybackStream).map {
            ($0.id, Volume($0.props))
        })

        // The call holds the music and pauses the players; the announcement ducks the rest.
        let call = try rig.startCall()
        try await waitUntil(timeout: .seconds(15), "the music is held (\((try? Self.linkedMusic(sandbox)) ?? -1) still linked)") {
            () async -> Bool in (try? Self.linkedMusic(sandbox)) == 0
        }
        try await waitUntil(timeout: .seconds(10), "both players are Paused (\(Self.players(rig)))") { () async -> Bool in
            Self.players(rig).values.filter { $0 == "Paused" }.count == Self.playerCount
        }
        let announcement = try sandbox.play(role: "Announcement", file: rig.tone, extraArguments: ["-P", "{ node.name = announcement }"])
        try await waitUntil(timeout: .seconds(10), "the ducks are under way") { () async -> Bool in
            return (1...Self.ambienceCount).contains { index in
                guard let volume = watcher.volume(of: "ambience-\(index)") else { return false }
                return volume < 1 && volume > 0.3
            }
        }

        // The fault, with ducks under way and the music held.
        let ducked = Self.differences(watcher, user).count
        #expect(ducked > 0, "streams are ducked when the fault comes")
        if fault.duringReload {
            let directory = sandbox.directory.appendingPathComponent("config/audiosession/policy-rules.d")
            try Self.reloadedRules.write(to: directory.appendingPathComponent("60-reload.conf"), atomically: true, encoding: .utf8)
            let oracle = SessionOracle(sandbox: sandbox, busAddress: rig.bus.address)
            try waitUntil(timeout: .seconds(10), "the daemon reloaded its rules (now \((try? oracle.rules())?.description ?? "no status"))") {
                let rules = try oracle.rules()
                return rules.outcome == "reloaded" && rules.files.contains { $0.hasSuffix("60-reload.conf") }
            }
        }
        let pipeWirePID = try #require(sandbox.daemonPID)
        if fault.killsPipeWire {
            kill(pipeWirePID, SIGKILL)
            // Every client dies with it or is left without a server; pipewire-pulse too.
            try sandbox.restart()
            try await rig.waitUntilReady(count: 2, timeout: .seconds(20))
        } else {
            try rig.stopDaemon(SIGKILL)
            // While it is dead, the call, the announcement and the low-latency stream end.
            for process in [call, announcement, lowLatency] { process.terminate() }
            try await rig.restartDaemon()  // ready: it has read its journal and undone what was left
        }

        // Nothing left behind.
        var checked = Checked()
        if fault.killsPipeWire {
            // A fresh server: what the streams' apps start again must play as the user left it,
            // and nothing the daemon held from before may act on it.
            for index in 1...10 {
                try sandbox.play(role: "Music", file: rig.tone, extraArguments: ["-P", "{ node.name = again-\(index) }"])
            }
            try await waitUntil(timeout: .seconds(20), "the new streams play") { () async -> Bool in
                (1...10).allSatisfy { index in
                    watcher.graph.snapshot.nodes.values.first { $0.name == "again-\(index)" }.map { Self.isLinked($0.id, watcher) } ?? false
                }
            }
            for node in watcher.graph.snapshot.nodes.values where node.name.hasPrefix("again-") {
                let unity = node.props?.volume == 1 && node.props?.channelVolumes.allSatisfy { $0 == 1 } == true
                    && node.props?.softFactor == 1
                #expect(unity, "\(node.name) at its own volume: \(Volume(node.props))")
                checked.volumes += 1
                checked.links += 1
            }
        } else {
            try await waitUntil(timeout: .seconds(20), "every stream plays at its user's volume again:\n\(Self.differences(watcher, user))\n\(Self.logLines(about: Self.differences(watcher, user), in: rig))") {
                () async -> Bool in Self.differences(watcher, user).isEmpty
            }
            for id in user.keys where watcher.graph.snapshot.nodes[id] != nil {
                checked.volumes += 1
                checked.links += 1
            }
            #expect(checked.volumes == playing - 1, "every stream but the call, the announcement and the low-latency one is still there")
        }
        try await waitUntil(timeout: .seconds(10), "the settings metadata is clean (\(Self.forced(watcher)))") { () async -> Bool in
            Self.forced(watcher).allSatisfy { $0 == "0" || $0 == "-" }
        }
        checked.settings = 2
        if fault.killsPipeWire {
            // mpv ends its playback when its server goes away (Stopped, not Paused): that is the
            // player's own doing, and a Play from us would start it over. No pause of ours is left.
            try await waitUntil(timeout: .seconds(15), "no player is left paused (\(Self.players(rig)))\n\(rig.log)") { () async -> Bool in
                let players = Self.players(rig)
                return players.count == Self.playerCount && players.values.allSatisfy { $0 == "Playing" || $0 == "Stopped" }
            }
            // Stopped before the daemon lost PipeWire or after: either way our pause of it is
            // closed (the journal owes it nothing, below) and it is left Stopped, never started
            // over by a Play of ours.
            let stopped = Self.players(rig).filter { $0.value == "Stopped" }.keys
            try await waitUntil(timeout: .seconds(5), "no journal owes a stopped player a Play") { () async -> Bool in rig.mprisJournal == nil }
            #expect(stopped.allSatisfy { Self.players(rig)[$0] == "Stopped" }, "left Stopped: \(Self.players(rig))")
        } else {
            try await waitUntil(timeout: .seconds(15), "the players play (\(Self.players(rig)))\n\(rig.log)") { () async -> Bool in
                let players = Self.players(rig)
                return players.count == Self.playerCount && players.values.allSatisfy { $0 == "Playing" }
            }
        }
        checked.players = Self.playerCount
        try await waitUntil(timeout: .seconds(5), "no journal owes anything") { () async -> Bool in rig.mprisJournal == nil }
        print("faults at load (\(fault.rawValue)), \(Self.streamCount) streams, \(ducked) ducked or held at the fault: checked \(checked.volumes) volumes, \(checked.links) links, \(checked.settings) settings keys, \(checked.players) players")
        #expect(try rig.stopDaemon(SIGTERM) == 0)
    }

    // MARK: - Oracles

    /// The playback streams linked to a device (the daemon's meters aside).
    static func linkedStreams(_ watcher: VolumeWatcher) -> [GlobalID] {
        watcher.graph.snapshot.nodes.values.filter(\.isPlaybackStream).map(\.id).filter { isLinked($0, watcher) }
    }

    static func isLinked(_ id: GlobalID, _ watcher: VolumeWatcher) -> Bool {
        let snapshot = watcher.graph.snapshot
        return snapshot.links.values.contains { link in
            link.outputNode == id && snapshot.nodes[link.inputNode]?.isSink == true
        }
    }

    /// How many music-N streams pw-link (an independent oracle) still shows linked.
    static func linkedMusic(_ sandbox: PrivatePipeWire) throws -> Int {
        let outputs = try sandbox.portLinks().compactMap { $0.outputPort.split(separator: ":").first.map(String.init) }
        // music-1 ... music-25, not mpv's "music-player".
        return Set(outputs.filter { $0.hasPrefix("music-") && Int($0.dropFirst(6)) != nil }).count
    }

    /// Streams whose volume is not their user's, or that play nowhere.
    static func differences(_ watcher: VolumeWatcher, _ user: [GlobalID: Volume]) -> [String] {
        let snapshot = watcher.graph.snapshot
        return user.sorted { $0.key < $1.key }.compactMap { id, expected in
            guard let node = snapshot.nodes[id] else { return nil }
            let now = Volume(node.props)
            if now != expected { return "\(node.name) (\(id)): \(now), its user's \(expected)" }
            if !isLinked(id, watcher) { return "\(node.name) (\(id)) is linked to no device" }
            return nil
        }
    }

    /// What both daemons logged about the streams `differences` names (by their ids).
    static func logLines(about differences: [String], in rig: Rig) -> String {
        let ids = differences.compactMap { line -> String? in
            guard let open = line.firstIndex(of: "("), let close = line.firstIndex(of: ")") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        let logs = rig.previousLogs + [rig.log]
        return logs.enumerated().map { index, log in
            "daemon \(index + 1):\n" + log.split(separator: "\n").filter { line in
                ids.contains { line.contains(" \($0) ") || line.contains(" \($0):") || line.contains("stream \($0)") || line.contains("[\($0)") }
                    || line.contains("journal") || line.contains("left behind")
            }.suffix(60).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// `clock.force-quantum` and `clock.force-rate` in the settings metadata ("-" when absent).
    static func forced(_ watcher: VolumeWatcher) -> [String] {
        let settings = watcher.graph.snapshot.metadata["settings"]
        return ["clock.force-quantum", "clock.force-rate"].map { settings?.value(for: $0) ?? "-" }
    }

    /// Every MPRIS player on the rig's bus and its status (playerctl).
    static func players(_ rig: Rig) -> [String: String] {
        let environment = rig.sandbox.environment.merging(["DBUS_SESSION_BUS_ADDRESS": rig.bus.address]) { $1 }
        guard let names = try? ManagedProcess.run("playerctl", ["--list-all"], environment: environment, logDirectory: rig.sandbox.logDirectory)
        else { return [:] }
        var statuses: [String: String] = [:]
        for name in names.split(separator: "\n").map(String.init) where name.hasPrefix("mpv") {
            statuses[name] = (try? ManagedProcess.run(
                "playerctl", ["--player=\(name)", "status"], environment: environment, logDirectory: rig.sandbox.logDirectory
            ))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        }
        return statuses
    }
}
