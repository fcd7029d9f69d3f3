import Foundation
import PipeWireSandbox
import Testing

/// The usual desktop: WirePlumber links streams and manages devices (with the coexistence file
/// from contrib/wireplumber), audiosessiond in its default `--linking=auto` sees it and applies
/// the session policy only. On the stack under test: WirePlumber 0.4.13 on Debian 12's
/// PipeWire, 0.5.8 on PipeWire 1.4.2 (`make test-stack-1.4`).
@Suite("audiosessiond beside WirePlumber", .serialized)
struct WirePlumberCoexistenceTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let duckLevel: Float = 0.3  // the shipped duck.level
    let handedOver = "not linking: WirePlumber links streams (--linking=auto)"

    /// The shipped file that keeps WirePlumber's role-based policy off, for its series.
    static func coexistenceConfiguration(for series: WirePlumberSeries) -> [String: URL] {
        switch series {
        case .v0_4:
            ["policy.lua.d/90-audiosession.lua": repository.appendingPathComponent("contrib/wireplumber/policy.lua.d/90-audiosession.lua")]
        case .v0_5:
            ["wireplumber.conf.d/90-audiosession.conf": repository.appendingPathComponent("contrib/wireplumber/wireplumber.conf.d/90-audiosession.conf")]
        }
    }

    @discardableResult
    func startWirePlumber(in sandbox: PrivatePipeWire) throws -> ManagedProcess {
        try sandbox.startWirePlumber(configuration: Self.coexistenceConfiguration(for: sandbox.wirePlumberSeries))
    }

    /// Waits until `stream` plays on exactly one device over links WirePlumber made, one per
    /// channel, none of them ours or doubled; returns the device.
    @discardableResult
    func waitUntilLinkedByWirePlumber(_ stream: String, in sandbox: PrivatePipeWire, channels: Int = 2) throws -> String {
        var links: [PipeWireDump.OwnedLink] = []
        try waitUntil(timeout: .seconds(10), "WirePlumber alone links '\(stream)' (links now: \(links))") {
            links = try sandbox.dump().ownedLinks(of: stream).filter { !$0.peer.hasPrefix("audiosession-meter-") }
            return links.count == channels && links.allSatisfy { $0.owner == "wireplumber" }
                && Set(links.map(\.peer)).count == 1
        }
        return links[0].peer
    }

    /// A desktop: WirePlumber with the coexistence file, the daemon in its default mode (which
    /// sees WirePlumber and links nothing), and music WirePlumber linked to `device`.
    struct Desktop {
        let sandbox: PrivatePipeWire
        let daemon: DaemonProcess
        let watcher: VolumeWatcher
        let tone: URL
        let device: String
        /// The daemon's bus: its decisions (``BusDecisions``) and `status --json`.
        let bus: PrivateSessionBus
        let decisions: BusDecisions
        let oracle: SessionOracle

        func stop() {
            decisions.terminate()
            bus.stop()
            sandbox.stop()
        }
    }

    /// Waits until `status --json` says the daemon links as `expected`.
    static func waitForLinking(_ expected: String, _ oracle: SessionOracle) throws {
        var said = ""
        try waitUntil(timeout: .seconds(10), "the daemon says '\(expected)' (it says '\(said)')") {
            said = (try? oracle.status()["linking"] as? String) ?? ""
            return said == expected
        }
    }

    func musicBesideWirePlumber() throws -> Desktop {
        let sandbox = try PrivatePipeWire()
        try startWirePlumber(in: sandbox)
        let bus = try PrivateSessionBus()
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose"], environment: bus.environment)
        try daemon.waitUntilReady()
        let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
        try Self.waitForLinking(handedOver, oracle)
        let decisions = try BusDecisions(in: sandbox, bus: bus)
        let watcher = try VolumeWatcher(sandbox)
        let tone = try sandbox.testTone()
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        let device = try waitUntilLinkedByWirePlumber("music", in: sandbox)
        return Desktop(
            sandbox: sandbox, daemon: daemon, watcher: watcher, tone: tone, device: device, bus: bus, decisions: decisions, oracle: oracle)
    }

    @Test func wirePlumberLinksAndTheDaemonDucksInterruptsAndLeavesNothingBehind() throws {
        let desktop = try musicBesideWirePlumber()
        let (sandbox, daemon, watcher, tone, device) = (desktop.sandbox, desktop.daemon, desktop.watcher, desktop.tone, desktop.device)
        defer { desktop.stop() }
        // A notification ducks the music; WirePlumber's links stay as they are.
        let chime = try sandbox.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime }"])
        try watcher.waitForVolume(of: "music", duckLevel)
        chime.terminate()
        try watcher.waitForVolume(of: "music", 1.0)
        // A call silences it by policy mute (the links are WirePlumber's: removing them would
        // leave it silent for good, 0.5 does not re-create them) and lifts it when it ends.
        let callStarted = ContinuousClock.now
        let call = try sandbox.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
        try waitUntil(timeout: .seconds(5), "music is muted by policy") { watcher.node("music")?.props?.softMute == true }
        let muted = ContinuousClock.now - callStarted
        #expect(try waitUntilLinkedByWirePlumber("music", in: sandbox) == device)
        let callEnded = ContinuousClock.now
        call.terminate()
        try waitUntil(timeout: .seconds(5), "music is unmuted") { watcher.node("music")?.props?.softMute == false }
        print("beside WirePlumber (\(sandbox.wirePlumberSeries)): call spawned → music muted \(muted.formatted(.units(allowed: [.milliseconds]))), call stopped → unmuted \((ContinuousClock.now - callEnded).formatted(.units(allowed: [.milliseconds])))")
        // The daemon linked nothing: every link of the music is WirePlumber's.
        #expect(try waitUntilLinkedByWirePlumber("music", in: sandbox) == device)

        // Ducked when the daemon stops: the volume is back, the music plays where it was.
        let second = try sandbox.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime2 }"])
        try watcher.waitForVolume(of: "music", duckLevel)
        #expect(try daemon.terminate() == 0)
        try watcher.waitForVolume(of: "music", 1.0)
        #expect(try waitUntilLinkedByWirePlumber("music", in: sandbox) == device)
        second.terminate()
    }

    /// WirePlumber switches Bluetooth headsets itself (0.4 for calls, 0.5 for any capture of a
    /// headset's microphone): the daemon says so in `status`, and a voiceChat call, which alone
    /// it would take to HFP, leaves the headset to WirePlumber. Read through the decisions the
    /// daemon sends in order: none switches the headset for the call.
    @Test func wirePlumberSwitchesHeadsetsAndTheDaemonNeverDoes() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        try startWirePlumber(in: sandbox)
        let headset = try sandbox.startBluetoothHeadset()
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose"], environment: bus.environment)
        try daemon.waitUntilReady()
        let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
        try Self.waitForLinking(handedOver, oracle)
        var said = ""
        try waitUntil(timeout: .seconds(10), "the daemon says WirePlumber switches headsets (it says '\(said)')") {
            said = (try? oracle.status()["headsetSwitching"] as? String) ?? ""
            return said.hasPrefix("switched by another session manager")
        }
        let monitor = try DecisionMonitor(in: sandbox, bus: bus)
        defer { monitor.terminate() }
        let requestsBefore = headset.profileRequests.count
        let call = try sandbox.spawn(
            DaemonProcess.path(of: "audiosessionctl"),
            ["run", "--category", "playAndRecord", "--mode", "voiceChat", "--app", "voip", "--", "sleep", "600"],
            extraEnvironment: bus.environment)
        defer { call.terminate() }
        var kinds: [String] = []
        try waitUntil(timeout: .seconds(10), "the call is activated (decisions \(kinds))") {
            kinds = monitor.kinds
            return kinds.contains("activated")
        }
        // A second session's activation (refused: music ranks below a call): its decision comes
        // after every decision of the call's (the daemon sends them in order on one connection).
        let music = try sandbox.spawn(
            DaemonProcess.path(of: "audiosessionctl"),
            ["run", "--category", "playback", "--app", "player", "--", "sleep", "600"], extraEnvironment: bus.environment)
        defer { music.terminate() }
        try waitUntil(timeout: .seconds(10), "the music session is refused after the call (decisions \(kinds)); log:\n\(daemon.log)") {
            kinds = monitor.kinds
            return kinds.contains("failed")
        }
        #expect(!kinds.contains("headsetProfile"), "\(kinds)")
        #expect(headset.profileRequests.count == requestsBefore, "\(headset.profileRequests)")
        #expect(try daemon.terminate() == 0)
    }

    /// Killed (SIGKILL) mid-call: WirePlumber's links were never touched, so the music keeps
    /// its device; the mute it could not undo is undone by the next start.
    @Test func killedMidCallItLeavesTheLinksAndTheNextStartLiftsTheMute() throws {
        let desktop = try musicBesideWirePlumber()
        let (sandbox, daemon, watcher, tone, device) = (desktop.sandbox, desktop.daemon, desktop.watcher, desktop.tone, desktop.device)
        defer { desktop.stop() }
        let call = try sandbox.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
        try waitUntil(timeout: .seconds(5), "music is muted by policy") { watcher.node("music")?.props?.softMute == true }
        kill(daemon.process.pid, SIGKILL)
        _ = try daemon.process.waitForExit(timeout: .seconds(5))
        call.terminate()
        #expect(try waitUntilLinkedByWirePlumber("music", in: sandbox) == device)
        let next = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--no-bus"])
        try next.waitUntilReady()
        try waitUntil(timeout: .seconds(5), "music is unmuted: the next start undid what the killed one left") {
            watcher.node("music")?.props?.softMute == false
        }
        #expect(try next.terminate() == 0)
    }

    /// What WirePlumber remembers of a pulse app with no role (its `restore-stream` state,
    /// 0.4, or `stream-properties`, 0.5, keyed by application name): the lines for `app`, once
    /// they were written.
    func savedState(of app: String, in sandbox: PrivatePipeWire) -> String? {
        let state = sandbox.directory.appendingPathComponent("state/wireplumber")
        for file in ["stream-properties", "restore-stream"] {
            guard let text = try? String(contentsOf: state.appendingPathComponent(file), encoding: .utf8) else { continue }
            let lines = text.split(separator: "\n").filter { $0.contains("application.name:\(app)") }
            if !lines.isEmpty { return lines.joined(separator: " ") }
        }
        return nil
    }

    /// The volumes a saved line holds (every number after "volume" keys, 0.4's `volume=1.0`
    /// and `channelVolumes=1.0;1.0;` as 0.5's JSON), and its mute.
    func savedLevels(_ line: String) -> (volumes: [Double], muted: Bool) {
        let volumes = line.matches(of: /[vV]olumes?"?[:=]\[?([0-9.;, ]+)/).flatMap { match in
            match.output.1.split(whereSeparator: { ";, ".contains($0) }).compactMap { Double($0) }
        }
        return (volumes, line.contains("\"mute\":true") || line.contains("mute=true"))
    }

    /// A player that stops while ducked, or while muted for a call, starts again at its user's
    /// level: our share is in the converter's soft volumes and soft mute, which WirePlumber
    /// never saves, so its state files never hold a duck or a policy mute of ours.
    @Test func aPlayerStoppedWhileDuckedOrMutedStartsAgainAtItsUsersLevelAndWirePlumberSavedNone() throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        try startWirePlumber(in: sandbox)
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose"], environment: bus.environment)
        try daemon.waitUntilReady()
        try Self.waitForLinking(handedOver, SessionOracle(sandbox: sandbox, busAddress: bus.address))
        let watcher = try VolumeWatcher(sandbox)
        let tone = try sandbox.testTone()
        func startPlayer() throws -> (ManagedProcess, String) {
            let player = try sandbox.paplay(role: nil, file: tone)
            var name = ""
            try waitUntil(timeout: .seconds(5), "paplay's stream appears") {
                name = watcher.graph.snapshot.streams.first { $0.properties["application.process.id"] == String(player.pid) }?.name ?? ""
                return !name.isEmpty
            }
            try waitUntilLinkedByWirePlumber(name, in: sandbox)
            return (player, name)
        }
        func expectSavedAtUsersLevel(_ moment: String) throws {
            var line = ""
            try waitUntil(timeout: .seconds(10), "WirePlumber saved paplay's level \(moment) (now: \(line))") {
                line = savedState(of: "paplay", in: sandbox) ?? ""
                let saved = savedLevels(line)
                return !saved.volumes.isEmpty && saved.volumes.allSatisfy { $0 == 1 } && !saved.muted
            }
        }

        var (player, name) = try startPlayer()
        let chime = try sandbox.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime }"])
        try watcher.waitForVolume(of: name, duckLevel)
        player.terminate()
        try expectSavedAtUsersLevel("after it stopped while ducked")
        chime.terminate()
        (player, name) = try startPlayer()
        let again = try #require(try sandbox.dump().node(named: name))
        #expect(again.volume == 1 && again.channelVolumes?.allSatisfy { $0 == 1 } == true && again.mute == false, "\(again.props ?? [:])")
        try watcher.waitForVolume(of: name, 1.0)

        let call = try sandbox.play(role: "Communication", file: tone, extraArguments: ["-P", "{ node.name = call }"])
        try waitUntil(timeout: .seconds(5), "paplay is muted by policy") { watcher.node(name)?.props?.softMute == true }
        player.terminate()
        try expectSavedAtUsersLevel("after it stopped while muted for a call")
        call.terminate()
        (player, name) = try startPlayer()
        let third = try #require(try sandbox.dump().node(named: name))
        #expect(third.mute == false && third.channelVolumes?.allSatisfy { $0 == 1 } == true, "\(third.props ?? [:])")
        #expect(try daemon.terminate() == 0)
        try expectSavedAtUsersLevel("after the daemon stopped")
    }

    /// Headphones unplugged beside WirePlumber: it moves the music to the speaker, the daemon
    /// pauses it there (by mute: nothing to unlink), as AVAudioSession pauses media.
    @Test func unplugPausesTheMusicWhereWirePlumberMovesIt() throws {
        let desktop = try musicBesideWirePlumber()
        let (sandbox, daemon, device) = (desktop.sandbox, desktop.daemon, desktop.device)
        defer { desktop.stop() }
        let music = try desktop.oracle.session(ofNodeNamed: "music").id
        try waitUntil(timeout: .seconds(5), "the music's session is routed to \(device)") {
            try desktop.oracle.route(of: music) == "in[] out[virtual:\(device)]"
        }
        try sandbox.destroyNode(named: device)
        try desktop.decisions.waitForPauses()
        #expect(desktop.decisions.pausesForRouteLoss == [music] && desktop.decisions.pauseMethods == ["mute"], "paused by mute: nothing to unlink")
        try waitUntil(timeout: .seconds(5), "the music is muted by the policy") {
            try sandbox.dump().node(named: "music")?.softMute == true
        }
        let moved = try waitUntilLinkedByWirePlumber("music", in: sandbox)
        #expect(moved != device)
        #expect(try daemon.terminate() == 0)
        try waitUntil(timeout: .seconds(5), "the mute is undone") { try sandbox.dump().node(named: "music")?.softMute == false }
        #expect(try waitUntilLinkedByWirePlumber("music", in: sandbox) == moved)
    }
}

/// What only WirePlumber 0.5 does, on the stack under test when it runs 0.5 (0.5.12 on the
/// 1.6 stack), else on the 1.4 backport's 0.5.8: taking linking over from the daemon, and its role-based policy (the example
/// `media-role-nodes.conf` loopbacks), which ducks and corks by role as the daemon does: the
/// daemon says so once, and the shipped drop-in turns it off.
@Suite("audiosessiond beside WirePlumber 0.5", .serialized)
struct WirePlumber05Tests {
    let conflict = "another session manager's role-based policy is on"
    let coexistence = WirePlumberCoexistenceTests()

    func sandbox() throws -> PrivatePipeWire {
        if let underTest = try PipeWireInstallation.underTest(), underTest.wirePlumberSeries == .v0_5 {
            return try PrivatePipeWire(installation: underTest)
        }
        return try PrivatePipeWire(installation: PipeWireInstallation.backport(packageRoot: PipeWireInstallation.packageRoot))
    }

    @discardableResult
    func startWirePlumber(in sandbox: PrivatePipeWire) throws -> ManagedProcess {
        try coexistence.startWirePlumber(in: sandbox)
    }

    func waitUntilLinkedByWirePlumber(_ stream: String, in sandbox: PrivatePipeWire) throws -> String {
        try coexistence.waitUntilLinkedByWirePlumber(stream, in: sandbox)
    }

    /// The daemon links alone until WirePlumber comes (at log-in both start at once), then
    /// hands its links over; when WirePlumber goes it links again; stopped beside WirePlumber it
    /// leaves every stream playing on WirePlumber's links. WirePlumber 0.4.13 cannot take over a
    /// stream another client configured (its activation of the stream never completes and its
    /// linking stalls): there the unit starts the daemon after WirePlumber.
    @Test func linkingIsHandedOverWhenWirePlumberComesAndTakenBackWhenItGoes() throws {
        let sandbox = try sandbox()
        defer { sandbox.stop() }
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose", "--no-bus"])
        try daemon.waitUntilReady()
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try waitUntil(timeout: .seconds(10), "the daemon links the music") {
            let links = try sandbox.dump().ownedLinks(of: "music")
            return links.count == 2 && links.allSatisfy { $0.owner == "audiosessiond" }
        }
        // The user's chosen output, set in the metadata the daemon provides: it holds through
        // every hand-over, so WirePlumber plays the music there each time.
        let chosen = "speaker"
        try sandbox.run("pw-metadata", ["-n", "default", "0", configuredSink, "{ \"name\": \"\(chosen)\" }", "Spa:String:JSON"])
        try waitUntil(timeout: .seconds(5), "the daemon's default metadata holds the choice") {
            try sandbox.dump().metadataValue("default", key: configuredSink)?.contains(chosen) == true
        }
        // The links are what hands over: the daemon's go, WirePlumber's come.
        let wirePlumber = try startWirePlumber(in: sandbox)
        #expect(try waitUntilLinkedByWirePlumber("music", in: sandbox) == chosen)
        try waitUntilTheDefaultMetadataIsWirePlumbersAlone(holding: chosen, in: sandbox)

        wirePlumber.terminate()
        var seen = ""
        do {
            try waitUntil(timeout: .seconds(10), "the daemon links the music again") {
                let links = try sandbox.dump().ownedLinks(of: "music")
                seen = links.map { "\($0.peer) by \($0.owner ?? "?")" }.joined(separator: ", ")
                return links.count == 2 && links.allSatisfy { $0.owner == "audiosessiond" }
            }
        } catch {
            Issue.record("the music's links: [\(seen)]; the daemon's log:\n\(daemon.log.suffix(6000))")
            throw error
        }

        try startWirePlumber(in: sandbox)
        #expect(try waitUntilLinkedByWirePlumber("music", in: sandbox) == chosen)
        try waitUntilTheDefaultMetadataIsWirePlumbersAlone(holding: chosen, in: sandbox)
        #expect(try daemon.terminate() == 0)
        #expect(try waitUntilLinkedByWirePlumber("music", in: sandbox) == chosen)
    }

    let configuredSink = "default.configured.audio.sink"

    /// Ours goes once WirePlumber has said what it does, not while it binds what it found
    /// (it would never be read again), and the user's choice goes over to WirePlumber's.
    /// The registry is read: `pw-dump` leaves out a metadata object with no entries.
    func waitUntilTheDefaultMetadataIsWirePlumbersAlone(holding chosen: String, in sandbox: PrivatePipeWire) throws {
        var providers: [String] = []
        var choice: String?
        try waitUntil(timeout: .seconds(5), "one default metadata, WirePlumber's, with the choice (now provided by \(providers), holding \(choice ?? "none"))") {
            let dump = try sandbox.dump()
            providers = try sandbox.metadataProviders(named: "default", in: dump)
            choice = dump.metadataValue("default", key: configuredSink)
            return providers == ["wireplumber"] && choice?.contains(chosen) == true
        }
    }

    /// WirePlumber 0.5's role loopbacks take the streams the daemon would link: `status` says so,
    /// once, with the drop-in that ends it; with the drop-in, streams go straight to their device
    /// and nothing conflicts.
    @Test func theConflictIsReportedOnceAndTheShippedDropInEndsIt() throws {
        let sandbox = try sandbox()
        defer { sandbox.stop() }
        let installation = try #require(sandbox.installation)
        let loopbacks = ["wireplumber.conf.d/media-role-nodes.conf": installation.wirePlumberExample("media-role-nodes.conf")]
        let wirePlumber = try sandbox.startWirePlumber(configuration: loopbacks)
        try waitUntil(timeout: .seconds(10), "the role loopbacks exist") {
            try sandbox.dump().node(named: "input.loopback.sink.role.multimedia") != nil
        }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let daemon = try DaemonProcess(in: sandbox, arguments: ["--verbose"], environment: bus.environment)
        try daemon.waitUntilReady()
        let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
        func conflicts() -> [String] { (try? oracle.status()["conflicts"] as? [String]) ?? [] }
        let tone = try sandbox.testTone()
        let music = try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["input.loopback.sink.role.multimedia"])
        try waitUntil(timeout: .seconds(10), "status says the conflict (now \(conflicts()))") { !conflicts().isEmpty }
        let chime = try sandbox.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime }"])
        try sandbox.waitUntilLinked("chime", to: ["input.loopback.sink.role.notification"])
        let said = conflicts()
        #expect(said.count == 1, "said once, for the first stream: \(said)")
        #expect(said.first?.hasPrefix(conflict) == true && said.first?.contains("'music'") == true, "\(said)")
        #expect(said.first?.contains("contrib/wireplumber/wireplumber.conf.d/90-audiosession.conf") == true, "names the drop-in: \(said)")
        chime.terminate()
        music.terminate()
        #expect(try daemon.terminate() == 0)
        wirePlumber.terminate()

        // The same loopbacks with the shipped drop-in: streams go straight to their device.
        var both = loopbacks
        both["wireplumber.conf.d/90-audiosession.conf"] = WirePlumberCoexistenceTests.repository
            .appendingPathComponent("contrib/wireplumber/wireplumber.conf.d/90-audiosession.conf")
        try sandbox.startWirePlumber(configuration: both)
        try waitUntil(timeout: .seconds(10), "the role loopbacks exist again") {
            try sandbox.dump().node(named: "input.loopback.sink.role.multimedia") != nil
        }
        let next = try DaemonProcess(in: sandbox, arguments: ["--verbose"], environment: bus.environment)
        try next.waitUntilReady()
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music2 }"])
        var devices = Set<String>()
        try waitUntil(timeout: .seconds(10), "music2 is linked to a device (now \(devices))") {
            devices = try sandbox.linkedDevices(of: "music2")
            return devices.count == 1 && !devices.contains { $0.hasPrefix("input.loopback.") }
        }
        #expect(conflicts().isEmpty, "nothing conflicts: \(conflicts())")
        #expect(try next.terminate() == 0)
    }
}
