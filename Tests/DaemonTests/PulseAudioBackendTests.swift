import Foundation
import PipeWireSandbox
import PulseAudioServer
import Testing

/// The same policy on a pure PulseAudio 16 server (no PipeWire): a call holds the music and
/// gives it back, a notification ducks it and restores it exactly, and nothing the daemon
/// changed (streams parked, volumes, PulseAudio's own role modules, the stream-restore
/// database) outlives it: not SIGTERM, not SIGKILL and a restart, not a server restart.
@Suite("audiosessiond on PulseAudio", .serialized)
struct PulseAudioBackendTests {
    static let musicRecord = "sink-input-by-media-role:music"

    private struct Rig {
        let pulse: PrivatePulseAudio
        let watcher: PulseWatcher
        let tone: URL
        /// The loaded modules before the daemon started.
        let modules: [String]
    }

    private func start() throws -> (Rig, DaemonProcess) {
        let pulse = try PrivatePulseAudio()
        let modules = try pulse.moduleList()
        let watcher = try PulseWatcher(pulse)
        let rig = Rig(pulse: pulse, watcher: watcher, tone: try pulse.testTone(), modules: modules)
        return (rig, try startDaemon(rig))
    }

    /// A daemon that has taken over: its parking sink is there and role-cork is gone.
    private func startDaemon(_ rig: Rig) throws -> DaemonProcess {
        let daemon = try DaemonProcess(in: rig.pulse)
        try daemon.waitUntilReady()
        try waitUntil(timeout: .seconds(10), "the daemon's parking sink is there and role-cork unloaded; log:\n\(daemon.log)") {
            rig.watcher.snapshot.sinks.values.contains { $0.name == "audiosession.hold" }
                && !rig.watcher.snapshot.modules.values.contains { $0.name == "module-role-cork" }
        }
        return daemon
    }

    private func play(_ role: String, _ rig: Rig) throws -> ManagedProcess {
        let player = try rig.pulse.play(rig.tone, properties: ["media.role": role])
        try rig.watcher.waitForStream(role)
        return player
    }

    /// The music's record, once the server has it.
    private func musicRecord(_ rig: Rig) throws -> StreamRestoreEntry? {
        try rig.watcher.streamRestore()[Self.musicRecord]
    }

    private func expectNothingLeft(_ rig: Rig, musicRecord before: StreamRestoreEntry?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let modules = try rig.pulse.moduleList()
        #expect(modules == rig.modules, "the server's modules are as they were", sourceLocation: sourceLocation)
        try waitUntil(timeout: .seconds(5), "the music's stream-restore record is as it was: \(String(describing: before)), now \(String(describing: try? musicRecord(rig)))") {
            try musicRecord(rig) == before
        }
    }

    @Test func aCallHoldsTheMusicAndGivesItBack() throws {
        let (rig, daemon) = try start()
        _ = try play("music", rig)
        try rig.watcher.waitForSink(of: "music", "speakers")
        try waitUntil(timeout: .seconds(5), "the music's record exists") { try musicRecord(rig) != nil }
        let record = try musicRecord(rig)
        let call = try play("phone", rig)
        try rig.watcher.waitForSink(of: "music", "audiosession.hold")
        let parking = rig.watcher.snapshot.sinks.values.first { $0.name == "audiosession.hold" }
        #expect(parking?.state == .suspended, "held streams wait on a suspended sink: their clock stops")
        #expect(rig.watcher.sinkInput("music")?.corked == false, "PulseAudio's own role-cork did not cork it: ours decides")
        #expect(rig.watcher.sinkName(of: "phone") == "speakers")
        call.terminate()
        try rig.watcher.waitForSink(of: "music", "speakers")
        #expect(try daemon.terminate() == 0)
        try expectNothingLeft(rig, musicRecord: record)
    }

    /// A recording goes on through a call, begun before it or during it, from the microphone or
    /// from what plays (a monitor recording held through a call used to record nothing more
    /// after it): on the desktop a call holds no recorder.
    @Test(arguments: ["mic", "speakers.monitor"])
    func aRecordingGoesOnThroughACall(source: String) throws {
        let (rig, daemon) = try start()
        defer { rig.pulse.stop() }
        do { try recordThroughACall(source: source, rig, daemon) } catch {
            Issue.record("\(error)\nthe server now: \(rig.watcher.snapshot.sinkInputs.values.map { "\($0.name) → \(rig.watcher.snapshot.sinks[$0.device]?.name ?? "sink \($0.device)")" })\ndaemon log:\n\(daemon.log)")
        }
    }

    private func recordThroughACall(source: String, _ rig: Rig, _ daemon: DaemonProcess) throws {
        _ = try play("music", rig)
        try rig.watcher.waitForSink(of: "music", "speakers")
        /// Every recording of `process` captures from `source`, unmuted and not corked.
        func records(_ process: ManagedProcess) -> Bool {
            let sources = rig.watcher.snapshot.sources
            let outputs = rig.watcher.snapshot.sourceOutputs.values.filter { $0.properties["application.process.id"] == String(process.pid) }
            return !outputs.isEmpty && outputs.allSatisfy { !$0.muted && !$0.corked && sources[$0.device]?.name == source }
        }
        let before = try rig.pulse.spawn("parecord", ["--device=\(source)", rig.pulse.directory.appendingPathComponent("before.wav").path])
        try waitUntil(timeout: .seconds(10), "parecord records from \(source); log:\n\(daemon.log)") { records(before) }
        let call = try play("phone", rig)
        try rig.watcher.waitForSink(of: "music", "audiosession.hold")
        #expect(records(before), "the recording that began before the call goes on")
        let during = try rig.pulse.spawn("parecord", ["--device=\(source)", rig.pulse.directory.appendingPathComponent("during.wav").path])
        try waitUntil(timeout: .seconds(10), "the recording started during the call records; log:\n\(daemon.log)") { records(during) }
        call.terminate()
        try rig.watcher.waitForSink(of: "music", "speakers")
        #expect(records(before) && records(during))
        #expect(try daemon.terminate() == 0)
    }

    /// A stream created not to move (module-loopback's `sink_dont_move`, as an app's
    /// `PA_STREAM_DONT_MOVE`) cannot be parked: the engine's next method, a mute, silences it for
    /// the call, and it plays on unmuted after.
    @Test func aStreamThatRefusesToMoveIsMutedForTheCallInstead() throws {
        let (rig, daemon) = try start()
        let loopback = try rig.pulse.pactl([
            "load-module", "module-loopback", "source=headphones.monitor", "sink=speakers", "sink_dont_move=true",
            "sink_input_properties='media.role=music application.name=Radio'",
        ]).trimmingCharacters(in: .whitespacesAndNewlines)
        try rig.watcher.waitForSink(of: "music", "speakers")
        try waitUntil(timeout: .seconds(5), "the radio's record exists") { try musicRecord(rig) != nil }
        let record = try musicRecord(rig)
        let call = try play("phone", rig)
        try waitUntil(timeout: .seconds(5), "the radio is muted; log:\n\(daemon.log)") { rig.watcher.sinkInput("music")?.muted == true }
        #expect(rig.watcher.sinkName(of: "music") == "speakers", "it may not move, and was not moved")
        call.terminate()
        try waitUntil(timeout: .seconds(5), "the radio plays again") { rig.watcher.sinkInput("music")?.muted == false }
        #expect(try daemon.terminate() == 0)
        _ = try rig.pulse.pactl(["unload-module", loopback])
        try expectNothingLeft(rig, musicRecord: record)
    }

    @Test func aNotificationDucksTheMusicAndRestoresTheUsersVolumeExactly() throws {
        let (rig, daemon) = try start()
        _ = try play("music", rig)
        guard let music = rig.watcher.sinkInput("music") else { return }
        // The user's own volume, as pavucontrol would set it.
        _ = try rig.pulse.pactl(["set-sink-input-volume", String(music.index), "80%"])
        let user = UInt32(0.8 * 65536)
        try rig.watcher.waitForVolume(of: "music") { $0 == user }
        let record = try musicRecord(rig)
        let chime = try rig.pulse.play(try rig.pulse.testTone(seconds: 2), properties: ["media.role": "event"])
        defer { chime.terminate() }
        // The shipped duck level is 0.3 of the user's volume (linear): 0.8^3 × 0.3 in PulseAudio's cubic steps.
        do {
            try rig.watcher.waitForVolume(of: "music") { Double($0) < 0.75 * Double(user) }
        } catch {
            throw SandboxError.timeout("\(error); the daemon's log:\n\(daemon.log)")
        }
        #expect(rig.watcher.volume(of: "event") == 65536, "the notification itself is not ducked")
        try rig.watcher.waitForVolume(of: "music", timeout: .seconds(10)) { $0 == user }
        #expect(try musicRecord(rig) == record, "the duck left no trace in the stream-restore database")
        #expect(try daemon.terminate() == 0)
        try expectNothingLeft(rig, musicRecord: record)
    }

    /// speech-dispatcher speaking with espeak-ng sets no role: the rules make it speech here
    /// too. It ducks the music while it speaks, and the music's volume and record come back
    /// exactly once it is done.
    ///
    /// speech-dispatcher keeps its streams open and running, silent, after the words: only
    /// their level says the speech ended (``PulseLevelMeter``), else the music would stay
    /// ducked for as long as speech-dispatcher runs. The meters leave no record behind.
    @Test
    func speechDispatcherWithNoRoleDucksTheMusicAndGivesItBack() throws {
        let (rig, daemon) = try start()
        _ = try play("music", rig)
        try waitUntil(timeout: .seconds(5), "the music's record exists") { try musicRecord(rig) != nil }
        let record = try musicRecord(rig)
        let recordsBefore = Set(try rig.watcher.streamRestore().keys)
        let speech = try RealSpeech(in: rig.pulse)
        defer { speech.stop() }
        let said = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? speech.say("The quick brown fox jumps over the lazy dog, and over it again, for the music to be ducked.")
            said.signal()
        }
        try rig.watcher.waitForVolume(of: "music", timeout: .seconds(15)) { $0 < 50_000 }
        let voices = rig.watcher.snapshot.sinkInputs.values.filter { ($0.properties["application.name"] ?? "").hasPrefix("speech-dispatcher") }
        #expect(!voices.isEmpty && voices.allSatisfy { $0.properties["media.role"] == nil }, "it set no role: \(voices.map(\.properties))")
        said.wait()
        do {
            try rig.watcher.waitForVolume(of: "music", timeout: .seconds(10)) { $0 == 65536 }
        } catch {
            let streams = rig.watcher.snapshot.sinkInputs.values.map { "\($0.name) corked=\($0.corked) \($0.properties)" }
            let outputs = (try? rig.pulse.pactl(["list", "source-outputs"])) ?? ""
            throw SandboxError.timeout("\(error)\nstreams: \(streams.joined(separator: "\n"))\nsource outputs:\n\(outputs)\nthe daemon's log:\n\(daemon.log)")
        }
        #expect(
            rig.watcher.snapshot.sourceOutputs.values.contains(where: PulseLevelMeter.isMeter),
            "the speech is watched by a meter of ours while it plays: \(rig.watcher.snapshot.sourceOutputs.values.map(\.properties))")
        #expect(try daemon.terminate() == 0)
        try expectNothingLeft(rig, musicRecord: record)
        let newRecords = Set(try rig.watcher.streamRestore().keys).subtracting(recordsBefore)
        // The server's records of speech-dispatcher's own streams, none of ours.
        #expect(newRecords.allSatisfy { $0.hasPrefix("sink-input-by-application-name:") && !$0.contains("audiosession") }, "records: \(newRecords)")
    }

    @Test func musicThatEndsWhileDuckedLeavesItsRecordAsItWas() throws {
        let (rig, daemon) = try start()
        let music = try play("music", rig)
        try waitUntil(timeout: .seconds(5), "the music's record exists") { try musicRecord(rig) != nil }
        let record = try musicRecord(rig)
        _ = try play("event", rig)
        try rig.watcher.waitForVolume(of: "music") { $0 < 50_000 }
        music.terminate()
        try waitUntil(timeout: .seconds(5), "the music's record is put back") { try musicRecord(rig) == record }
        #expect(try daemon.terminate() == 0)
        try expectNothingLeft(rig, musicRecord: record)
    }

    /// Music ducked by a long notification, a video held by a call that started after it.
    private func duckMusicAndHoldVideo(_ rig: Rig) throws -> (record: StreamRestoreEntry?, chime: ManagedProcess, call: ManagedProcess) {
        _ = try play("music", rig)
        _ = try play("video", rig)
        try waitUntil(timeout: .seconds(5), "the music's record exists") { try musicRecord(rig) != nil }
        let record = try musicRecord(rig)
        let chime = try rig.pulse.play(try rig.pulse.testTone(seconds: 30), properties: ["media.role": "event"])
        try rig.watcher.waitForVolume(of: "music") { $0 < 50_000 }
        let call = try play("phone", rig)
        try rig.watcher.waitForSink(of: "video", "audiosession.hold")
        return (record, chime, call)
    }

    @Test func sigtermDuringACallAndADuckLeavesTheServerAsItWas() throws {
        let (rig, daemon) = try start()
        let (record, chime, call) = try duckMusicAndHoldVideo(rig)
        defer {
            chime.terminate()
            call.terminate()
        }
        #expect(try daemon.terminate() == 0)
        do {
            try rig.watcher.waitForSink(of: "video", "speakers")
            try rig.watcher.waitForSink(of: "music", "speakers")
            try rig.watcher.waitForVolume(of: "music") { $0 == 65536 }
            try expectNothingLeft(rig, musicRecord: record)
        } catch {
            Issue.record("\(error)\nmoves seen: \(rig.watcher.moves.map { "\($0.stream) → \($0.sink ?? "?")" })\ndaemon log:\n\(daemon.log)")
        }
    }

    @Test func sigkillWhileHoldingAndDuckingIsUndoneByTheNextRun() throws {
        let (rig, daemon) = try start()
        let (record, chime, call) = try duckMusicAndHoldVideo(rig)
        kill(daemon.process.pid, SIGKILL)
        _ = try daemon.process.waitForExit(timeout: .seconds(5))
        call.terminate()
        chime.terminate()
        // What the killed run left: a parked stream on a sink of ours, a ducked volume.
        #expect(rig.watcher.sinkName(of: "video") == "audiosession.hold")
        #expect((rig.watcher.volume(of: "music") ?? 0) < 50_000)
        let left = rig.watcher.snapshot.sinks.values.first { $0.name == "audiosession.hold" }?.index
        let next = try startDaemon(rig)
        try rig.watcher.waitForSink(of: "video", "speakers")
        try rig.watcher.waitForVolume(of: "music") { $0 == 65536 }
        // The leftover goes, then the new run's own comes, under the same name.
        try waitUntil(timeout: .seconds(5), "the new run's parking sink replaced the leftover") {
            let parking = rig.watcher.snapshot.sinks.values.filter { $0.name.hasPrefix("audiosession.hold") }
            return parking.count == 1 && parking.first?.name == "audiosession.hold" && parking.first?.index != left
        }
        #expect(try next.terminate() == 0)
        try expectNothingLeft(rig, musicRecord: record)
    }

    @Test func aServerRestartIsMediaServicesResetAndLeavesNothingBehind() throws {
        let (rig, daemon) = try start()
        _ = try play("music", rig)
        try waitUntil(timeout: .seconds(5), "the music's record exists") { try musicRecord(rig) != nil }
        let record = try musicRecord(rig)
        _ = try play("phone", rig)
        try rig.watcher.waitForSink(of: "music", "audiosession.hold")
        try rig.pulse.restart()
        // A new server has no hold sink of ours until the daemon took it over.
        try waitUntil(timeout: .seconds(20), "the daemon took over the new server; log:\n\(daemon.log)") {
            rig.watcher.isSynced && rig.watcher.snapshot.sinks.values.contains { $0.name == "audiosession.hold" }
                && !rig.watcher.snapshot.modules.values.contains { $0.name == "module-role-cork" }
        }
        #expect(try daemon.terminate() == 0)
        try expectNothingLeft(rig, musicRecord: record)
    }
}

/// Headphones that go away on PulseAudio: the server itself moves their streams to the next
/// sink at once (as `module-switch-on-port-available` does for a jack), and the policy's
/// pause on unplug races it. The music must end held, and the time it leaked from the
/// speakers is printed (docs/pulseaudio.md has the numbers over many runs).
@Suite("audiosessiond on PulseAudio: headphones go away", .serialized)
struct PulseAudioUnplugRaceTests {
    /// A private PulseAudio whose null sinks are typed as a speaker and headphones by a port
    /// rule, `default` the default sink, and the daemon on it, on a private bus whose decisions
    /// a monitor reads.
    private func start(default sink: String) throws -> Stage {
        let pulse = try PrivatePulseAudio(sinks: ["speakers", "headphones"])
        _ = try pulse.pactl(["set-default-sink", sink])
        let rules = pulse.directory.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try """
            audiosession.port-rules = [
                { matches = [ { node.name = "headphones" } ]  actions = { port-type = headphones } }
                { matches = [ { node.name = "speakers" } ]  actions = { port-type = builtInSpeaker } }
                { matches = [ { node.name = "usb-dac" } ]  actions = { port-type = usbAudio } }
            ]
            """.write(to: rules.appendingPathComponent("90-test-ports.conf"), atomically: true, encoding: .utf8)
        let watcher = try PulseWatcher(pulse)
        let bus = try PrivateSessionBus()
        let daemon = try DaemonProcess(in: pulse, arguments: ["--verbose", "--rules", rules.path], environment: bus.environment)
        try waitUntil(timeout: .seconds(10), "the daemon took over; log:\n\(daemon.log)") {
            watcher.snapshot.sinks.values.contains { $0.name == "audiosession.hold" }
        }
        try daemon.waitUntilReady()
        let monitor = try pulse.spawn(DaemonProcess.path(of: "audiosessionctl"), ["monitor", "--json"], extraEnvironment: bus.environment)
        try waitUntil(timeout: .seconds(10), "the monitor watches the daemon") { monitor.output.contains("\"signal\":\"Watching\"") }
        return Stage(pulse: pulse, watcher: watcher, daemon: daemon, bus: bus, monitor: monitor)
    }

    struct Stage {
        let pulse: PrivatePulseAudio
        let watcher: PulseWatcher
        let daemon: DaemonProcess
        let bus: PrivateSessionBus
        let monitor: ManagedProcess

        /// Every session's route changes so far, as the monitor's `Decision` signals give them:
        /// `routeChanged <reason>`, and the pauses on unplug (`pauseForRouteLoss`).
        var routeDecisions: [String] {
            monitor.output.split(separator: "\n").compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    object["signal"] as? String == "Decision", let kind = object["kind"] as? String,
                    kind == "routeChanged" || kind == "pauseForRouteLoss"
                else { return nil }
                let reason = (object["details"] as? [String: Any])?["reason"] as? String
                return reason.map { "\(kind) \($0)" } ?? kind
            }
        }

        func waitForRouteDecision(_ decision: String) throws {
            try waitUntil(timeout: .seconds(5), "the monitor shows \(decision) (it shows \(routeDecisions)); log:\n\(daemon.log)") {
                routeDecisions.contains(decision)
            }
        }

        func stop() {
            monitor.terminate()
            pulse.stop()
            bus.stop()
        }
    }

    /// A USB DAC plugged in takes over (last in wins): it becomes PulseAudio's default sink and
    /// the music follows; at exit the user's default is theirs again.
    @Test func aNewDeviceTakesOverAndTheUsersDefaultComesBackAtExit() throws {
        let stage = try start(default: "speakers")
        let (pulse, watcher, daemon) = (stage.pulse, stage.watcher, stage.daemon)
        defer { stage.stop() }
        _ = try pulse.play(try pulse.testTone(), properties: ["media.role": "music"])
        try watcher.waitForSink(of: "music", "speakers")
        _ = try pulse.pactl(["load-module", "module-null-sink", "sink_name=usb-dac", "sink_properties=device.description=USB-DAC"])
        try watcher.waitForSink(of: "music", "usb-dac")
        #expect(watcher.snapshot.server.defaultSinkName == "usb-dac")
        try stage.waitForRouteDecision("routeChanged newDeviceAvailable")
        #expect(!stage.routeDecisions.contains("routeChanged override"), "our own default is not the user's override: \(stage.routeDecisions)")
        #expect(try daemon.terminate() == 0)
        try waitUntil(timeout: .seconds(5), "the user's default is theirs again (now \(watcher.snapshot.server.defaultSinkName ?? "none"))") {
            watcher.snapshot.server.defaultSinkName == "speakers"
        }
        try watcher.waitForSink(of: "music", "speakers")
    }

    /// Killed after a device took over: the next run sets the user's default again.
    @Test func afterASigkillTheNextRunPutsTheUsersDefaultBack() throws {
        let stage = try start(default: "speakers")
        let (pulse, watcher, daemon) = (stage.pulse, stage.watcher, stage.daemon)
        defer { stage.stop() }
        _ = try pulse.pactl(["load-module", "module-null-sink", "sink_name=usb-dac", "sink_properties=device.description=USB-DAC"])
        try waitUntil(timeout: .seconds(5), "the DAC takes over") { watcher.snapshot.server.defaultSinkName == "usb-dac" }
        kill(daemon.process.pid, SIGKILL)
        _ = try daemon.process.waitForExit(timeout: .seconds(5))
        let next = try DaemonProcess(in: pulse, arguments: ["--verbose", "--no-bus"])
        try waitUntil(timeout: .seconds(5), "the user's default is theirs again (now \(watcher.snapshot.server.defaultSinkName ?? "none")); log:\n\(next.log)") {
            watcher.snapshot.server.defaultSinkName == "speakers"
        }
        #expect(try next.terminate() == 0)
        #expect(try Self.defaultSink(of: pulse) == "speakers", "the watcher saw \(watcher.snapshot.server.defaultSinkName ?? "none")")
    }

    /// The server's default sink as it answers now: the watcher's view follows its events, and
    /// may not have caught up when the daemon has just exited.
    static func defaultSink(of pulse: PrivatePulseAudio) throws -> String {
        try pulse.pactl(["get-default-sink"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The user picks a default after ours: theirs stays after the daemon exits.
    @Test func theUsersChoiceAfterOursStaysAtExit() throws {
        let stage = try start(default: "speakers")
        let (pulse, watcher, daemon) = (stage.pulse, stage.watcher, stage.daemon)
        defer { stage.stop() }
        _ = try pulse.play(try pulse.testTone(), properties: ["media.role": "music"])  // a session whose route changes the monitor shows
        try watcher.waitForSink(of: "music", "speakers")
        _ = try pulse.pactl(["load-module", "module-null-sink", "sink_name=usb-dac", "sink_properties=device.description=USB-DAC"])
        try waitUntil(timeout: .seconds(5), "the DAC takes over") { watcher.snapshot.server.defaultSinkName == "usb-dac" }
        _ = try pulse.pactl(["set-default-sink", "headphones"])
        try stage.waitForRouteDecision("routeChanged override")
        #expect(try daemon.terminate() == 0)
        #expect(
            try Self.defaultSink(of: pulse) == "headphones",
            "the user's choice stays (the watcher saw \(watcher.snapshot.server.defaultSinkName ?? "none")); log:\n\(daemon.log)")
    }

    @Test func theUsersNewDefaultIsAnOverrideAndTheMusicPlaysOn() throws {
        let stage = try start(default: "speakers")
        let (pulse, watcher, daemon) = (stage.pulse, stage.watcher, stage.daemon)
        defer { stage.stop() }
        _ = try pulse.play(try pulse.testTone(), properties: ["media.role": "music"])
        try watcher.waitForSink(of: "music", "speakers")
        _ = try pulse.pactl(["set-default-sink", "headphones"])  // the user's choice (pavucontrol, a desktop applet)
        try watcher.waitForSink(of: "music", "headphones")
        try stage.waitForRouteDecision("routeChanged override")
        #expect(!stage.routeDecisions.contains("pauseForRouteLoss"), "an override does not pause: \(stage.routeDecisions)")
        #expect(watcher.sinkName(of: "music") == "headphones")
        #expect(try daemon.terminate() == 0)
    }

    @Test func unpluggedHeadphonesPauseTheMusicAfterPulseAudioMovedIt() throws {
        let stage = try start(default: "headphones")
        let (pulse, watcher, daemon) = (stage.pulse, stage.watcher, stage.daemon)
        defer { stage.stop() }
        _ = try pulse.play(try pulse.testTone(), properties: ["media.role": "music"])
        try watcher.waitForSink(of: "music", "headphones")
        let music = try #require(watcher.sinkInput("music")).index
        let module = try #require(watcher.snapshot.sinks.values.first { $0.name == "headphones" }?.ownerModule)

        _ = try pulse.pactl(["unload-module", String(module)])  // the headphones go away
        try watcher.waitForSink(of: "music", "audiosession.hold", timeout: .seconds(5))
        try stage.waitForRouteDecision("routeChanged oldDeviceUnavailable")
        let gone = try #require(watcher.removal(of: "headphones"))
        let moves = watcher.moves.filter { $0.stream == music && $0.at >= gone }
        let onSpeakers = moves.first { $0.sink == "speakers" }?.at
        let held = try #require(moves.first { $0.sink == "audiosession.hold" }?.at)
        let leak = onSpeakers.map { held - $0 } ?? .zero
        print("unplug race: PulseAudio moved the music to the speakers \(onSpeakers.map { "\($0 - gone)" } ?? "never") after the headphones went; held \(held - gone) after; leaked \(leak)")
        #expect(try daemon.terminate() == 0)
        try watcher.waitForSink(of: "music", "speakers")
    }
}

/// Real PulseAudio clients of every kind are held by a call and given back: `pacat` (libpulse's
/// simple playback), GStreamer's `pulsesink` and mpv over pulse (without MPRIS here, so it is
/// held, not paused).
@Suite("audiosessiond on PulseAudio: real clients held by a call", .serialized)
struct PulseAudioRealClientTests {
    struct Client: CustomStringConvertible, Sendable {
        let description: String
        let executable: String
        let arguments: [String]
        var environment: [String: String] = [:]
    }

    static let clients = [
        Client(description: "pacat", executable: "pacat", arguments: ["--property=media.role=music", "--file-format=wav", "{tone}"]),
        Client(description: "gst-launch-1.0 pulsesink", executable: "gst-launch-1.0", arguments: [
            "-q", "filesrc", "location={tone}", "!", "wavparse", "!", "audioconvert", "!", "pulsesink",
            "stream-properties=props,media.role=music",
        ]),
        Client(
            description: "mpv over pulse", executable: "mpv",
            arguments: ["--no-config", "--no-video", "--ao=pulse", "--loop-file=inf", "--no-terminal", "{tone}"],
            environment: ["PULSE_PROP": "media.role=music"]),
    ]

    @Test(arguments: clients)
    func aCallHoldsItAndGivesItBack(_ client: Client) throws {
        let pulse = try PrivatePulseAudio()
        defer { pulse.stop() }
        let watcher = try PulseWatcher(pulse)
        let daemon = try DaemonProcess(in: pulse)
        try waitUntil(timeout: .seconds(10), "the daemon took over; log:\n\(daemon.log)") {
            watcher.snapshot.sinks.values.contains { $0.name == "audiosession.hold" }
        }
        let tone = try pulse.testTone()
        let player = try pulse.spawn(
            client.executable, client.arguments.map { $0.replacingOccurrences(of: "{tone}", with: tone.path) },
            extraEnvironment: client.environment)
        try waitUntil(timeout: .seconds(15), "\(client) plays music; its output: \(player.errorOutput)") {
            watcher.sinkName(of: "music") == "speakers"
        }
        let call = try pulse.play(tone, properties: ["media.role": "phone"])
        try watcher.waitForSink(of: "music", "audiosession.hold")
        call.terminate()
        try watcher.waitForSink(of: "music", "speakers")
        #expect(player.isRunning, "\(client) plays on: \(player.errorOutput)")
        #expect(try daemon.terminate() == 0)
    }
}
