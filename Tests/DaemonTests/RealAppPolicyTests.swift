import Foundation
import PipeWireSandbox
import Testing

/// The policy for programs as they really are — no role, late properties, several clients —
/// with the real daemon on a private PipeWire (with pipewire-pulse) and session bus. Each test
/// names the finding it pins; the daemon's verdict is read with `audiosessionctl status --json`
/// and the audio with `pw-dump` / `pw-link`.
@Suite("Real apps: what the daemon makes of programs that set no role", .serialized)
struct RealAppPolicyTests {
    typealias Rig = MPRISInterruptionTests.Rig

    static func oracle(_ rig: Rig) -> SessionOracle { SessionOracle(sandbox: rig.sandbox, busAddress: rig.bus.address) }

    /// Recorders that say nothing about themselves (pw-record says Music) used to be
    /// "capture silenced": their volume went to 0 and they recorded silence.
    /// A recorder of what plays (a sink's monitor) mixes with everything: recording the output
    /// must not change it.
    @Test(arguments: [
        ("pw-record", ["--target", "mic"], "record", "recording"),
        ("parecord", ["--device=mic"], "record", "recording"),
        ("parecord", ["--device=headphones.monitor"], "playAndRecord", "monitoring"),
    ])
    func aRecorderWithNoRoleRecordsAndIsNeverSilenced(
        program: String, arguments: [String], category: String, reason: String
    ) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let decisions = try BusDecisions(in: rig.sandbox, bus: rig.bus)
        defer { decisions.terminate() }
        let oracle = Self.oracle(rig)
        try rig.sandbox.play(role: "Music", file: rig.tone, extraArguments: ["-P", "{ node.name = music }"])
        try await rig.waitUntilLinked("music", to: ["headphones"])
        let output = rig.sandbox.directory.appendingPathComponent("\(program).wav").path
        let recorder = try rig.sandbox.spawn(program, arguments + [output])
        var session: SessionOracle.Session?
        try await eventually("\(program)'s session records; log:\n\(rig.log)") {
            session = try oracle.session(ofProcess: recorder.pid)
            return session?.category == category && session?.activity == "active"
        }
        #expect(session?.classifiedBy == reason)
        #expect(session?.captureSilenced == false)
        // Nothing wrote the microphone stream's level: it is the app's own 1.0, unmuted.
        let streamID = try #require(session?.streams.first)
        let node = try #require(try rig.sandbox.dump().nodes.first { $0.id == streamID })
        #expect(node.volume == 1.0 && node.mute == false && node.softFactor == 1 && node.softMute != true, "\(node.props ?? [:])")
        #expect(decisions.captureSilenced.isEmpty, "no capture was silenced: \(decisions.all)")
        // `rules explain` groups the streams into apps as the daemon does, and says why.
        let explained = try ManagedProcess.run(
            DaemonProcess.path(of: "audiosessionctl"), ["rules", "explain", "--remote", rig.sandbox.socketPath],
            environment: rig.sandbox.environment, logDirectory: rig.sandbox.logDirectory)
        let block = explained.components(separatedBy: "\n\n").first { $0.hasPrefix("app process:\(recorder.pid) ") }
        #expect(block?.contains("why: \(reason == "recording" ? "records" : "captures what plays")") == true, "\(explained)")
        // Recording mixes with the music on the desktop.
        #expect(try rig.sandbox.linkedDevices(of: "music") == ["headphones"])
    }

    /// A call used to hold every recording for its whole length (its capture unlinked, the
    /// recording silently losing the call) and to hold a recording started during it until it
    /// ended. On the desktop the microphone is shared: a recording goes on through a call,
    /// whether it began before the call or during it, and so does a monitor recording.
    @Test(arguments: [
        ("pw-record", ["--target", "mic"]),
        ("parecord", ["--device=mic"]),
        ("parecord", ["--device=headphones.monitor"]),
    ])
    func aRecordingGoesOnThroughACall(program: String, arguments: [String]) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let decisions = try BusDecisions(in: rig.sandbox, bus: rig.bus)
        defer { decisions.terminate() }
        let oracle = Self.oracle(rig)
        try rig.sandbox.play(role: "Music", file: rig.tone, extraArguments: ["-P", "{ node.name = music }"])
        try await rig.waitUntilLinked("music", to: ["headphones"])
        /// The recorder's session records and each of its streams is linked.
        func records(_ recorder: ManagedProcess) throws -> Bool {
            guard let session = try oracle.session(ofProcess: recorder.pid), session.activity == "active", !session.streams.isEmpty
            else { return false }
            let links = try rig.sandbox.dump().links
            return session.streams.allSatisfy { stream in
                links.contains { ($0.info["input-node-id"] as? NSNumber)?.uint32Value == stream }
            }
        }
        let before = try rig.sandbox.spawn(program, arguments + [rig.sandbox.directory.appendingPathComponent("before.wav").path])
        try await eventually("\(program) records; log:\n\(rig.log)") { try records(before) }

        let call = try rig.sandbox.play(role: "Communication", file: rig.tone, extraArguments: ["-P", "{ node.name = call }"])
        try await eventually("the call holds the music; log:\n\(rig.log)") { try rig.sandbox.linkedDevices(of: "music").isEmpty }
        #expect(try records(before), "the recording that began before the call goes on")
        let during = try rig.sandbox.spawn(program, arguments + [rig.sandbox.directory.appendingPathComponent("during.wav").path])
        try await eventually("the recording started during the call records; log:\n\(rig.log)") { try records(during) }
        #expect(try rig.sandbox.linkedDevices(of: "music").isEmpty, "the call still holds the music")

        call.terminate()
        try await rig.waitUntilLinked("music", to: ["headphones"])
        #expect(try records(before) && records(during))
        #expect(decisions.captureSilenced.isEmpty, "no capture was silenced: \(decisions.all)")
    }

    /// mpv's native node used to be classified once, when it appeared, sometimes before its
    /// role arrived: its session stayed soloAmbient for its whole life in 3 of 8 starts.
    @Test func mpvIsClassifiedTheSameOnTwentyStartsInARow() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let oracle = Self.oracle(rig)
        var seen: [String] = []
        for _ in 1...20 {
            let mpv = try rig.sandbox.spawn(
                "mpv", ["--no-config", "--no-video", "--ao=pipewire", "--loop-file=inf", "--no-terminal", rig.tone.path])
            var session: SessionOracle.Session?
            try await eventually("mpv (pid \(mpv.pid)) has an active session; log:\n\(rig.log)") {
                session = try oracle.session(ofProcess: mpv.pid)
                return session?.activity == "active"
            }
            seen.append(session.map { "\($0.category)/\($0.mode) \($0.priorityClass)" } ?? "none")
            mpv.terminate()
            try await eventually("mpv's session is gone") { try oracle.session(ofProcess: mpv.pid) == nil }
        }
        #expect(Set(seen) == ["playback/default media"], "\(seen)")
    }
}

/// `waitUntil` that suspends between polls. A poll that throws counts as "not yet": real apps
/// open and close streams while oracles read the graph (0.3.65's pw-dump then prints broken
/// JSON now and then); the last error is reported if time runs out. The description is read
/// when time runs out, so it can show what the condition last saw.
func eventually(
    _ description: @autoclosure () -> String, timeout: Duration = .seconds(10), _ condition: () throws -> Bool
) async throws {
    var lastError: (any Error)?
    do {
        try await waitUntil(timeout: timeout, description()) { () async throws -> Bool in
            do {
                return try condition()
            } catch {
                lastError = error
                return false
            }
        }
    } catch {
        throw SandboxError.timeout("\(error)\(lastError.map { "; last poll failed: \($0)" } ?? "")")
    }
}

extension RealAppPolicyTests {
    /// speech-dispatcher with espeak-ng (two output modules, each its own stream, the
    /// synthesizer's kept running after the words) used to duck the music twice (0.09) and
    /// hold the duck 5–7 s after the words ended. Now: once, to the duck level, and back
    /// within about half a second of the speech falling silent.
    @Test func speechDucksTheMusicOnceAndGivesItBackWhenTheWordsEnd() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let decisions = try BusDecisions(in: rig.sandbox, bus: rig.bus)
        defer { decisions.terminate() }
        let volumes = try VolumeWatcher(rig.sandbox)
        try rig.sandbox.play(role: "Music", file: rig.tone, extraArguments: ["-P", "{ node.name = music }"])
        try await rig.waitUntilLinked("music", to: ["headphones"])
        let speech = try RealSpeech(in: rig.sandbox)
        defer { speech.stop() }
        let heard = try LevelTimeline(rig.sandbox)

        // A first phrase, not measured: the synthesizer opens its stream when it first speaks,
        // and the test's own listener starts on it.
        try speech.say("Ready.")
        var found: UInt32?
        try await eventually("espeak-ng's stream is there") {
            found = try rig.sandbox.dump().nodes.first {
                $0.mediaClass == "Stream/Output/Audio" && ($0.property("application.name") ?? "").contains("espeak")
            }?.id
            return found != nil
        }
        let synthesizer = try #require(found)
        heard.listen(to: synthesizer)
        try await eventually("the music is back after the first phrase") { volumes.volume(of: "music") == 1.0 }

        var back: [(ContinuousClock.Duration, ContinuousClock.Duration)] = []
        for round in 1...3 {
            let began = ContinuousClock.now
            let text = "The quick brown fox jumps over the lazy dog, round \(round)."
            let saying = Task.detached { try speech.say(text) }
            var ducked = false
            var rising: ContinuousClock.Instant?
            try await eventually("the music is ducked and back to 1.0 (now \(volumes.volume(of: "music") ?? -1)); log:\n\(rig.log)", timeout: .seconds(20)) {
                let volume = volumes.volume(of: "music") ?? 1
                if volume < 0.31 { ducked = true }
                if ducked, rising == nil, volume > 0.31 { rising = .now }
                return ducked && volume == 1.0
            }
            let full = ContinuousClock.now
            try await saying.value
            var silence: ContinuousClock.Instant?
            try await eventually("the listener heard round \(round)'s words end") {
                silence = heard.lastSilenceStart.flatMap { $0 > began ? $0 : nil }
                return silence != nil
            }
            let silenceStart = try #require(silence)
            back.append(((rising ?? full) - silenceStart, full - silenceStart))
            // The synthesizer's stream is still there, running: only its level said it was done.
            let node = try rig.sandbox.dump().nodes.first { $0.id == synthesizer }
            #expect(node?.state == "running", "\(node?.state ?? "gone")")
            // Ducked once: never below the duck level.
            #expect(volumes.volumes(of: "music").allSatisfy { $0 >= 0.3 - 1e-4 }, "\(volumes.volumes(of: "music"))")
            #expect(volumes.volumes(of: "music").contains { abs($0 - 0.3) < 1e-4 }, "it was ducked")
        }
        let formatted = back.map { "unduck starts \($0.0.formatted(.units(allowed: [.milliseconds]))), full \($0.1.formatted(.units(allowed: [.milliseconds])))" }
        print("speech → music back after the words end: \(formatted.joined(separator: "; "))")
        // The unduck starts after the 250 ms grace (StreamQuietness) and ramps 500 ms.
        #expect(back.allSatisfy { $0.0 < .milliseconds(600) && $0.1 < .milliseconds(1200) }, "\(formatted)")
        #expect(decisions.captureSilenced.isEmpty, "no capture was silenced: \(decisions.all)")
    }
}

extension RealAppPolicyTests {
    /// A SIP call between two instances of baresip (ALSA through PipeWire's plugin: one
    /// PipeWire client per PCM) used to cut itself off: each stream was a session of its own, a
    /// call that interrupted the others — 4 of 5 streams unlinked. Now each instance is one app,
    /// two calls both stay heard, and the call pauses the music.
    @Test func aSIPCallBetweenTwoInstancesKeepsAllOfItsStreamsLinkedAndPausesTheMusic() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let decisions = try BusDecisions(in: rig.sandbox, bus: rig.bus)
        defer { decisions.terminate() }
        _ = try await rig.startPlayingMusic()
        let calleePort = LoopbackPorts.free()
        let callee = try RealSIP(port: calleePort, in: rig.sandbox)
        defer { callee.stop() }
        try await eventually("the callee is ready: \(callee.process.output)") { callee.process.output.contains("baresip is ready") }
        let caller = try RealSIP(port: LoopbackPorts.free(avoiding: [calleePort]), calling: calleePort, in: rig.sandbox)
        defer { caller.stop() }

        // The ALSA plugin's streams carry their pid on their clients only: the daemon's sessions
        // (by app) name them.
        let oracle = Self.oracle(rig)
        var streams: [PipeWireDump.Object] = []
        defer {
            if streams.count < 4 { print("baresip callee:\n\(callee.process.output)\nbaresip caller:\n\(caller.process.output)\ndaemon:\n\(rig.log)") }
        }
        try await eventually("each instance is one call session that plays and records", timeout: .seconds(20)) {
            let dump = try rig.sandbox.dump()
            var found: [PipeWireDump.Object] = []
            for pid in [caller.process.pid, callee.process.pid] {
                guard let session = try oracle.session(ofProcess: pid), session.priorityClass == "communication" else { return false }
                let nodes = dump.nodes.filter { session.streams.contains($0.id) }
                guard Set(nodes.compactMap(\.mediaClass)) == ["Stream/Output/Audio", "Stream/Input/Audio"] else { return false }
                found += nodes
            }
            streams = found
            return true
        }
        try await rig.waitForStatus("Paused")
        print("baresip call: \(streams.count) streams in 2 sessions: \(streams.map { "\($0.id) \($0.mediaClass ?? "")" })")
        for pid in [caller.process.pid, callee.process.pid] {
            let session = try #require(try oracle.session(ofProcess: pid))
            #expect(session.category == "playAndRecord" && session.activity == "active", "\(session.summary)")
        }
        // Every stream of the call is linked, and stays so (nothing of the call interrupts it).
        try await Task.sleep(for: .milliseconds(500))
        let dump = try rig.sandbox.dump()
        for stream in streams where dump.nodes.contains(where: { $0.id == stream.id }) {
            let linked = dump.nodeLinks.contains { $0.output == stream.id || $0.input == stream.id }
            #expect(linked, "stream \(stream.id) (\(stream.mediaClass ?? "")) is linked")
        }
        let callSessions = Set(try streams.compactMap { try oracle.session(ofStream: $0.id)?.id })
        let held = decisions.all.filter { callSessions.contains($0.session) && $0.kind == "interruptionBegan" }
        #expect(held.isEmpty, "no stream of the call was held: \(held)")
        caller.stop()
        callee.stop()
        try await rig.waitForStatus("Playing")
    }
}

extension RealAppPolicyTests {
    /// Role-less players and tools used to fall to soloAmbient (silenced by silent mode, not
    /// paused on unplug); ALSA apps hid behind "PipeWire ALSA [binary]"; SDL's PipeWire driver
    /// tagged a video player a game. Each is now what it is.
    @Test(arguments: RealPlayer.all)
    func aRoleLessProgramIsClassifiedAsWhatItIs(_ player: RealPlayer) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let oracle = Self.oracle(rig)
        let process = try player.start(in: rig.sandbox, tone: rig.tone)
        var session: SessionOracle.Session?
        try await eventually("\(player.name) (pid \(process.pid)) has an active session; its output:\n\(process.errorOutput.suffix(500))\nlog:\n\(rig.log.suffix(3000))", timeout: .seconds(15)) {
            session = try oracle.session(ofProcess: process.pid)
            return session?.activity == "active"
        }
        let final = try #require(session)
        print("\(player.name): \(final.summary)")
        #expect(final.category == player.category && final.priorityClass == player.priorityClass, "\(final.summary)")
    }
}

extension RealAppPolicyTests {
    /// Two call apps the rules do not know (baresip under another name), calling each other.
    /// Each opens its microphone first, so each is a recorder until its speaker comes; the
    /// slower end used to be held by the other's call (its capture and playback unlinked), and
    /// over pulse it never finished opening its streams. Both ends of a call stay heard, the
    /// music pauses for the call and plays again after it.
    @Test func twoUnknownCallAppsCallingEachOtherAreBothHeard() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let (monitor, oracle, music) = try await Self.musicPlayingUnderMonitor(rig)
        defer { monitor.terminate() }
        let calleePort = LoopbackPorts.free()
        let callee = try RealSIP(port: calleePort, binary: "softphone", in: rig.sandbox)
        defer { callee.stop() }
        try await eventually("the callee is ready: \(callee.process.output)") { callee.process.output.contains("baresip is ready") }
        let caller = try RealSIP(
            port: LoopbackPorts.free(avoiding: [calleePort]), calling: calleePort, binary: "softphone", in: rig.sandbox)
        defer { caller.stop() }

        let call = TwoPartyCall([caller.process.pid, callee.process.pid], rig: rig, oracle: oracle)
        try await eventually("both ends are heard; daemon:\n\(rig.log)", timeout: .seconds(20)) { try call.isHeard() }
        try await rig.waitForStatus("Paused")
        for pid in [caller.process.pid, callee.process.pid] {
            let session = try #require(try oracle.session(ofProcess: pid))
            #expect(session.classifiedBy == "call" && session.category == "playAndRecord", "\(session.summary)")
        }
        try await Self.expectBothEndsHeardToTheEnd(
            rig, monitor: monitor, music: music, call: call
        ) {
            caller.stop()
            callee.stop()
        }
    }

    /// The same with a second real SIP phone, Twinkle (its console mode, its own audio code over
    /// ALSA; each end opens and closes its speaker and microphone to check them before the
    /// call), copied under a name no rule knows. Which stream of each end came first is printed.
    /// Neither end is held by the other, the music pauses for the call and plays again.
    ///
    /// The caller plays no ring-back tone here. Twinkle stops it by freeing the PCM's buffers
    /// while it still runs (`snd_pcm_hw_free` without a drop); PipeWire's ALSA plugin before
    /// 0.3.84 then copies from the freed buffers on its own thread and aborts the phone
    /// (PipeWire issue 3600, Twinkle issue 321): 3 calls in 20 here, the caller killed by
    /// SIGABRT in `snd_pcm_areas_copy` as the call was answered. The ALSA programs of the tests
    /// load Debian 12's plugin (0.3.65) on the Debian and 1.6.9 stacks (trixie's plugin needs
    /// trixie's C library). The pulse plugin has no such thread: the PulseAudio test keeps the
    /// tone.
    @Test func twoUnknownTwinklePhonesCallingEachOtherAreBothHeard() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let (monitor, oracle, music) = try await Self.musicPlayingUnderMonitor(rig)
        defer { monitor.terminate() }
        let (caller, callee) = try await RealTwinkle.call(as: "deskphone", ringback: false, in: rig.sandbox)
        defer {
            caller.stop()
            callee.stop()
        }

        let call = TwoPartyCall([caller.process.pid, callee.process.pid], rig: rig, oracle: oracle)
        try await eventually(
            "both ends are heard; the ends now:\n\(call.state())\n\(caller.report)\n\(callee.report)\ndaemon:\n\(rig.log)",
            timeout: .seconds(20)
        ) { try call.isHeard() }
        try await rig.waitForStatus("Paused")
        let dump = try rig.sandbox.dump()
        for (end, pid) in [("caller", caller.process.pid), ("callee", callee.process.pid)] {
            let session = try #require(try oracle.session(ofProcess: pid))
            func serial(_ node: PipeWireDump.Object) -> UInt64 { node.property("object.serial").flatMap { UInt64($0) } ?? .max }
            let first = dump.nodes.filter { session.streams.contains($0.id) }.min { serial($0) < serial($1) }
            print("twinkle \(end): its first stream is \(first?.mediaClass ?? "?"); \(session.summary)")
            #expect(session.classifiedBy == "call" && session.category == "playAndRecord", "\(session.summary)")
        }
        try await Self.expectBothEndsHeardToTheEnd(
            rig, monitor: monitor, music: music, call: call
        ) {
            caller.send("bye")
            caller.stop()
            callee.stop()
        }
    }

    /// The same with a third real SIP phone, linphone's console client (linphonec, mediastreamer2
    /// over ALSA), copied under a name no rule knows. Unlike baresip and Twinkle, each end opens
    /// its microphone ~10 ms before its speaker: for a moment it is a recorder, then a call.
    /// What each end opened first (its log) and which stream came first in the graph are printed
    /// and checked. Neither end is held by the other, the music pauses for the call and plays
    /// again.
    @Test func twoUnknownLinphonePhonesThatOpenTheirMicrophoneFirstAreBothHeard() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let (monitor, oracle, music) = try await Self.musicPlayingUnderMonitor(rig)
        defer { monitor.terminate() }
        let calleePort = LoopbackPorts.free(offsets: [0, RealLinphone.rtpOffset])
        let callee = try RealLinphone(name: "bob", port: calleePort, autoAnswer: true, binary: "homephone", in: rig.sandbox)
        defer { callee.stop() }
        let callerPort = LoopbackPorts.free(
            offsets: [0, RealLinphone.rtpOffset], avoiding: [calleePort, calleePort + RealLinphone.rtpOffset])
        let caller = try RealLinphone(name: "alice", port: callerPort, binary: "homephone", in: rig.sandbox)
        defer { caller.stop() }
        try await eventually("both phones are up: \(callee.process.output)\n\(caller.process.output)", timeout: .seconds(15)) {
            callee.isReady && caller.isReady
        }
        caller.send("call sip:bob@127.0.0.1:\(calleePort)")

        let call = TwoPartyCall([caller.process.pid, callee.process.pid], rig: rig, oracle: oracle)
        try await eventually(
            "both ends are heard; the ends now:\n\(call.state())\ncaller:\n\(caller.process.output)\ncallee:\n\(callee.process.output)\ndaemon:\n\(rig.log)",
            timeout: .seconds(20)
        ) { try call.isHeard() }
        try await rig.waitForStatus("Paused")
        // What each end asked for first (its own log: one thread opens the microphone, then
        // the speaker ~10 ms later), and what the daemon saw first: the graph's order (serials).
        // The two PCMs are two PipeWire clients; a server running late registers both at once,
        // in either order (seen on 1 end in 190; 3 in 80 with a CPU hog on both cores): so each
        // end must ask for its microphone first, and the graph must show it first for one end
        // at least (each end that does is a recorder for a moment before its call).
        let dump = try rig.sandbox.dump()
        var microphoneFirstInTheGraph = 0
        for (end, phone) in [("caller", caller), ("callee", callee)] {
            let session = try #require(try oracle.session(ofProcess: phone.process.pid))
            func serial(_ node: PipeWireDump.Object) -> UInt64 { node.property("object.serial").flatMap { UInt64($0) } ?? .max }
            let nodes = dump.nodes.filter { session.streams.contains($0.id) }.sorted { serial($0) < serial($1) }
            let openings = phone.openings
            print("linphonec \(end): opens its \(openings.first ?? "?") first; its first stream is \(nodes.first?.mediaClass ?? "?"); \(session.summary)")
            #expect(openings.first == "microphone", "linphonec's \(end) opened its microphone first: \(openings)\n\(phone.audioLog)")
            if nodes.first?.mediaClass == "Stream/Input/Audio" { microphoneFirstInTheGraph += 1 }
            #expect(session.classifiedBy == "call" && session.category == "playAndRecord", "\(session.summary)")
            if nodes.first?.mediaClass != "Stream/Input/Audio" {
                print("linphonec \(end): its streams by serial \(nodes.map { "\($0.id) serial \(serial($0)) \($0.mediaClass ?? "")" })\n\(phone.audioLog)")
            }
        }
        #expect(microphoneFirstInTheGraph >= 1, "the microphone of an end came first in the graph; daemon:\n\(rig.log)")
        try await Self.expectBothEndsHeardToTheEnd(
            rig, monitor: monitor, music: music, call: call
        ) {
            caller.send("terminate")
            caller.stop()
            callee.stop()
        }
    }

    /// The end of a two-party call test: both ends stay heard for a second (every stream
    /// linked, neither session interrupted), the call held the music and never one of its own
    /// ends, not even while its streams were opening (once an end hangs up it is a call no more:
    /// what it still plays may be held); after `hangUp` the music plays again.
    static func expectBothEndsHeardToTheEnd(
        _ rig: Rig, monitor: ManagedProcess, music: SessionOracle.Session, call: TwoPartyCall, hangUp: () -> Void
    ) async throws {
        for _ in 1...10 {
            try await Task.sleep(for: .milliseconds(100))
            #expect(try call.isHeard(), "every stream of both ends is linked and neither session is interrupted")
        }
        let decisions = try Self.decisions(in: monitor)
        #expect(decisions.contains { $0.session == music.id && $0.kind == "interruptionBegan" }, "the call held the music")
        let held = decisions.filter { call.sessions.contains($0.session) && $0.kind == "interruptionBegan" }
        #expect(held.isEmpty, "an end of the call was held: \(held); daemon:\n\(rig.log)")
        hangUp()
        try await rig.waitForStatus("Playing")
    }

    /// Music playing, and every decision as the daemon announces it on the bus
    /// (`audiosessionctl monitor --json`, to be terminated by the caller) from the music's start.
    static func musicPlayingUnderMonitor(_ rig: Rig) async throws -> (ManagedProcess, SessionOracle, SessionOracle.Session) {
        let monitor = try rig.sandbox.spawn(
            DaemonProcess.path(of: "audiosessionctl"), ["monitor", "--json"], extraEnvironment: rig.bus.environment)
        // Subscribed before the music starts: a monitor still starting would miss its first decisions.
        try await eventually("the monitor watches the daemon (it says: \(monitor.output) \(monitor.errorOutput))") {
            monitor.output.contains("\"signal\":\"Watching\"")
        }
        let player = try await rig.startPlayingMusic()
        let oracle = Self.oracle(rig)
        let music = try #require(try oracle.session(ofProcess: player.pid))
        try await eventually("the monitor saw the music start") { try Self.decisions(in: monitor).contains { $0.session == music.id } }
        return (monitor, oracle, music)
    }

    /// Each end (a process) is one call session that plays and records, every stream of it
    /// linked; the sessions seen are added to `sessions`.
    static func callEndsHeard(_ ends: [Int32], in rig: Rig, oracle: SessionOracle, sessions: inout Set<UInt64>) throws -> Bool {
        let dump = try rig.sandbox.dump()
        for pid in ends {
            guard let session = try oracle.session(ofProcess: pid) else { return false }
            sessions.insert(session.id)
            guard session.priorityClass == "communication", session.activity == "active" else { return false }
            let nodes = dump.nodes.filter { session.streams.contains($0.id) }
            guard Set(nodes.compactMap(\.mediaClass)) == ["Stream/Output/Audio", "Stream/Input/Audio"] else { return false }
            for node in nodes where !dump.nodeLinks.contains(where: { $0.output == node.id || $0.input == node.id }) {
                return false
            }
        }
        return true
    }

    /// The `Decision` signals `audiosessionctl monitor --json` printed: session and kind.
    static func decisions(in monitor: ManagedProcess) throws -> [(session: UInt64, kind: String)] {
        monitor.output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["signal"] as? String == "Decision"
            else { return nil }
            return ((object["session"] as? NSNumber)?.uint64Value ?? 0, object["kind"] as? String ?? "")
        }
    }
}

extension RealAppPolicyTests {
    /// A MIDI player, a game or a tool playing a file that no rule names sets no role: it used
    /// to stay soloAmbient, so silent mode muted music its user asked for. Past a short sound
    /// it is media playback, which silent mode leaves alone; a beep stays soloAmbient and silent
    /// mode silences it.
    @Test(arguments: [("aplay", ["-q"]), ("paplay", [])])
    func aRoleLessPlayerIsMediaOnceItPlaysLongerThanABeep(program: String, arguments: [String]) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let oracle = Self.oracle(rig)
        try oracle.ctl(["silent", "on"])
        let player = try rig.sandbox.spawn(program, arguments + [rig.tone.path])
        try await Self.expectPlayingOnInSilentMode(player, rig: rig)

        let beep = try rig.sandbox.spawn(program, arguments + [try rig.sandbox.testTone(seconds: 1).path])
        var beepSession: SessionOracle.Session?
        try await eventually("the beep is soloAmbient and silenced; log:\n\(rig.log)") {
            beepSession = try oracle.session(ofProcess: beep.pid) ?? beepSession
            return beepSession?.silenced == true
        }
        #expect(beepSession?.category == "soloAmbient", "\(beepSession?.summary ?? "")")
        #expect(try beep.waitForExit(timeout: .seconds(10)) == 0)
        #expect(try oracle.session(ofProcess: beep.pid) == nil)
    }
}

extension RealAppPolicyTests {
    /// speech-dispatcher's generic module runs a command per message; here espeak-ng piped to
    /// one `aplay` per chunk, an ALSA client whose stream says nothing of speech. Each aplay was
    /// an app of its own, "no role": it never ducked the music, and silent mode muted the
    /// speech. A sound tool a program runs in its own job is now that program's helper: the
    /// chunks are the generic module's app (`sd_generic`, which speech-dispatcher starts in a
    /// process group of its own), which the rules name (and which they would see as what started
    /// them, `audiosession.ancestors`, in a desktop's app unit): speech, which ducks the music
    /// while heard.
    @Test func speechPlayedByAHelperPerChunkIsSpeech() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let oracle = Self.oracle(rig)
        let volumes = try await Self.playMusic(in: rig)
        let speech = try RealSpeech(in: rig.sandbox, playingThroughAplay: true)
        defer { speech.stop() }
        let saying = Task.detached { try speech.say("The quick brown fox jumps over the lazy dog, and over the lazy dog again.") }
        var session: SessionOracle.Session?
        var aplayApps: [String] = []
        try await eventually("the chunks' session is the speech module's speech; log:\n\(rig.log)", timeout: .seconds(20)) {
            let sessions = try oracle.sessions()
            aplayApps += sessions.filter { ($0.fields["app"] as? String) == "aplay" }.map(\.summary)
            session = sessions.first { ($0.fields["app"] as? String) == "sd_generic" && !$0.streams.isEmpty }
            return session?.mode == "voicePrompt"
        }
        let module = try #require(session).appIdentity.split(separator: ":").last.flatMap { Int32($0) }
        #expect(module.map { RealBrowser.descendants(of: speech.process.pid).contains($0) } == true, "the module is speech-dispatcher's: \(session?.fields ?? [:])")
        #expect(session?.priorityClass == "navigation", "\(session?.summary ?? "")")
        #expect(aplayApps.isEmpty, "no chunk is an app of its own: \(aplayApps)")
        try await eventually("the music is ducked while the words are heard") {
            volumes.volumes(of: "music").contains { abs($0 - 0.3) < 1e-4 }
        }
        try await saying.value
        try await eventually("the music is back after the words") { volumes.volume(of: "music") == 1.0 }
    }
}

extension RealAppPolicyTests {
    /// Festival says three sentences with the audio command its manual gives (`aplay` through a
    /// shell, once a sentence). No rule names aplay, and its stream says nothing of speech: each
    /// sentence was an app of its own, "no role", which never ducked the music and which silent
    /// mode muted. The sentences are festival's helpers now, one app, which the rules name
    /// among speech engines (`audiosession.app`): speech that ducks the music while heard.
    @Test func festivalsAplayPerSentenceIsFestivalsSpeech() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let oracle = Self.oracle(rig)
        let volumes = try await Self.playMusic(in: rig)
        let festival = try rig.sandbox.spawn("festival", RealFestival.arguments)
        defer { festival.terminate() }
        // The aplays seen while festival's session had a stream (the server may give each the
        // node id the one before had, so the helpers are told apart by their processes).
        var helpersHeard: Set<Int32> = []
        var notSpeech: Set<String> = []
        var aplayApps: Set<String> = []
        var ducked = false
        try await eventually("festival said its three sentences; its output: \(festival.errorOutput.suffix(300)); log:\n\(rig.log)", timeout: .seconds(60)) {
            let helpers = RealBrowser.descendants(of: festival.pid).filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\($0)/exe"))?.hasSuffix("/aplay") == true }
            let sessions = try oracle.sessions()
            aplayApps.formUnion(sessions.filter { ($0.fields["app"] as? String) == "aplay" }.map(\.summary))
            if let session = sessions.first(where: { $0.appIdentity == "process:\(festival.pid)" }) {
                if !session.streams.isEmpty { helpersHeard.formUnion(helpers) }
                if session.mode != "voicePrompt" || session.fields["app"] as? String != "festival" { notSpeech.insert(session.summary) }
            }
            if volumes.volumes(of: "music").contains(where: { abs($0 - 0.3) < 1e-4 }) { ducked = true }
            return !festival.isRunning
        }
        #expect(festival.exitStatus == 0, "festival spoke to the end: \(festival.errorOutput.suffix(300))")
        #expect(helpersHeard.count >= 2, "the sentences, each its own aplay, were festival's session: aplays \(helpersHeard)")
        #expect(aplayApps.isEmpty, "no sentence is an app of its own: \(aplayApps)")
        #expect(notSpeech.isEmpty, "festival's session is speech: \(notSpeech)")
        #expect(ducked, "the music was ducked while festival spoke")
        try await eventually("the music is back after the words") { volumes.volume(of: "music") == 1.0 }
    }
}

extension RealAppPolicyTests {
    /// TiMidity++ playing a MIDI file over ALSA: no role, no rule names it. Silent mode muted
    /// it as a beep; it is a player, media playback, and plays on.
    @Test func aMIDIPlayerIsMediaPlaybackThatSilentModeLeavesAlone() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let oracle = Self.oracle(rig)
        try oracle.ctl(["silent", "on"])
        let song = rig.sandbox.directory.appendingPathComponent("scale.mid")
        try MIDIFile.scale(seconds: 30).write(to: song)
        // freepats: the instruments Debian packages small (the default config wants fluid-soundfont-gm)
        let timidity = try rig.sandbox.spawn("timidity", ["-c", "/etc/timidity/freepats.cfg", "-Os", song.path])
        try await Self.expectPlayingOnInSilentMode(timidity, rig: rig)
    }

    /// A Music stream (`music`) linked to the headphones, and a watcher of its volumes.
    static func playMusic(in rig: Rig) async throws -> VolumeWatcher {
        let volumes = try VolumeWatcher(rig.sandbox)
        try rig.sandbox.play(role: "Music", file: rig.tone, extraArguments: ["-P", "{ node.name = music }"])
        try await rig.waitUntilLinked("music", to: ["headphones"])
        return volumes
    }

    /// With silent mode on: the program's session becomes media playback by what it does
    /// (`playing`), and its stream is heard — not muted by us, at its own volume.
    static func expectPlayingOnInSilentMode(_ program: ManagedProcess, rig: Rig) async throws {
        let oracle = Self.oracle(rig)
        var session: SessionOracle.Session?
        try await eventually("pid \(program.pid) is media playback, not silenced; its output: \(program.errorOutput.suffix(300)); log:\n\(rig.log)") {
            session = try oracle.session(ofProcess: program.pid)
            return session?.category == "playback" && session?.silenced == false
        }
        #expect(session?.classifiedBy == "playing", "\(session?.summary ?? "")")
        let streamID = try #require(session?.streams.first)
        let node = try #require(try rig.sandbox.dump().nodes.first { $0.id == streamID })
        #expect(node.mute == false && node.softMute != true, "it is heard: \(node.props ?? [:])")
    }

    /// flite speaks through ALSA by itself: the rules name it among speech engines; it ducks the
    /// music while its words are heard and gives it back after.
    @Test func fliteSpeaksAndDucksTheMusic() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let oracle = Self.oracle(rig)
        let volumes = try await Self.playMusic(in: rig)
        let flite = try rig.sandbox.spawn("flite", ["-t", "The quick brown fox jumps over the lazy dog, and over the lazy dog again, twice."])
        var session: SessionOracle.Session?
        try await eventually("flite's session is speech; its output: \(flite.errorOutput.suffix(300)); log:\n\(rig.log)") {
            session = try oracle.session(ofProcess: flite.pid) ?? session
            return session?.mode == "voicePrompt"
        }
        #expect(session?.priorityClass == "navigation", "\(session?.summary ?? "")")
        try await eventually("the music is ducked while the words are heard") {
            volumes.volumes(of: "music").contains { abs($0 - 0.3) < 1e-4 }
        }
        do {
            #expect(try flite.waitForExit(timeout: .seconds(20)) == 0)
        } catch {
            // A drain that never ends: the ALSA plugin waits for the server to have played the
            // last buffer, so a stream no cycle runs keeps flite waiting. Where it stood, then.
            let graph = try? rig.sandbox.dump()
            let streams = graph?.nodes.filter { $0.property("application.process.id") == String(flite.pid) }.map { node in
                "node \(node.id) \(node.name ?? "?") \(node.state ?? "?"), links \(graph?.nodeLinks.filter { $0.output == node.id || $0.input == node.id } ?? [])"
            }
            throw SandboxError.timeout(
                "\(error)\nits stacks: \(flite.stacks())\nits streams: \(streams.map { "\($0)" } ?? "pw-dump failed")\nthe daemon's log:\n\(rig.log)")
        }
        try await eventually("the music is back after the words") { volumes.volume(of: "music") == 1.0 }
    }
}

/// A Standard MIDI File made here: a test needs no file from elsewhere.
enum MIDIFile {
    /// A C major scale played over and over on a piano, half a second a note.
    static func scale(seconds: Int) -> Data {
        var track: [UInt8] = [0x00, 0xC0, 0x00]  // program change: piano
        let notes: [UInt8] = [60, 62, 64, 65, 67, 69, 71, 72]
        for index in 0..<(seconds * 2) {
            let note = notes[index % notes.count]
            track += [0x00, 0x90, note, 0x60]  // on at once
            track += [0x60, 0x80, note, 0x40]  // off 96 ticks (half a second at 120 bpm) later
        }
        track += [0x00, 0xFF, 0x2F, 0x00]  // end of track
        var file: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 0x60]
        let length = UInt32(track.count)
        file += Array("MTrk".utf8) + [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
        return Data(file + track)
    }
}

extension RealAppPolicyTests {
    /// A desktop music player with a GUI toolkit, as a user runs it: Audacious (GTK) on a
    /// private X server (Xvfb), playing through pipewire-pulse, its MPRIS player (its mpris2
    /// plugin) on the private session bus. It is a media session (playback, class media, by
    /// the rules' music players), matched to its MPRIS player; a call pauses it over MPRIS and
    /// it plays again when the call ends; silent mode leaves it playing, heard.
    @Test func aGUIMusicPlayerUnderXIsMediaPausedByACallAndLeftPlayingBySilentMode() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let oracle = Self.oracle(rig)
        let player = try RealDesktopPlayer(playing: rig.tone, in: rig.sandbox, bus: rig.bus)
        defer { player.stop() }
        let busName = "org.mpris.MediaPlayer2.\(player.name)"
        var last = ""
        func waitForStatus(_ expected: String) async throws {
            try await eventually("\(player.name) is \(expected) (playerctl says '\(last)'); its output:\n\(player.process.errorOutput.suffix(1500))\ndaemon:\n\(rig.log)") {
                last = (try? player.status()) ?? "no player"
                return last == expected
            }
        }
        try await waitForStatus("Playing")
        // Its GUI is up on the private display.
        var windows: [String] = []
        try await eventually("Audacious's window is on \(player.x.display) (windows: \(windows))") {
            windows = try player.windowNames()
            return windows.contains { $0.hasSuffix("Audacious") }
        }
        try await rig.waitForSessionsWithPlayers(1)
        try await rig.waitForDaemonToSee(busName, "Playing")

        var found: SessionOracle.Session?
        try await eventually("Audacious (pid \(player.process.pid)) is an active media session; daemon:\n\(rig.log)", timeout: .seconds(15)) {
            found = try oracle.session(ofProcess: player.process.pid)
            return found?.activity == "active" && found?.streams.isEmpty == false
        }
        /// Its session is active and its streams are linked to the headphones.
        func playsToTheHeadphones() throws -> Bool {
            guard let now = try oracle.session(ofProcess: player.process.pid), now.activity == "active", !now.streams.isEmpty
            else { return false }
            let dump = try rig.sandbox.dump()
            let targets = dump.nodeLinks.filter { now.streams.contains($0.output) }.compactMap { link in dump.nodes.first { $0.id == link.input }?.name }
            return Set(targets) == ["headphones"]
        }
        try await eventually("its stream plays to the headphones; daemon:\n\(rig.log)") { try playsToTheHeadphones() }
        let session = try #require(found)
        print("audacious: \(session.summary); windows \(windows.filter { $0.contains("Audacious") })")
        #expect(session.category == "playback" && session.priorityClass == "media", "\(session.summary)")
        #expect(session.classifiedBy.hasPrefix("rules"), "\(session.summary)")
        let stream = try #require(session.streams.first)
        let dump = try rig.sandbox.dump()
        let node = try #require(dump.nodes.first { $0.id == stream })
        let said = ["application.name", "application.process.binary", "media.role", "media.name"].map { "\($0)=\(node.property($0) ?? "none")" }
        print("audacious's stream \(stream): \(said.joined(separator: " "))")
        #expect(try oracle.session(ofProcess: player.process.pid)?.hasMPRISPlayer == true, "the daemon matched its session to an MPRIS player")

        // A call pauses it over MPRIS; its end plays it again.
        let callStarted = ContinuousClock.now
        let call = try rig.sandbox.play(role: "Communication", file: rig.tone, extraArguments: ["-P", "{ node.name = call }"])
        try await waitForStatus("Paused")
        let paused = ContinuousClock.now - callStarted
        // Its session paused by us over MPRIS, owed a Play (held first, if the call came before
        // the daemon heard Audacious say Playing: its late Playing is paused all the same).
        try await rig.waitForPlayerSession("paused by us, owed a Play", player: busName) {
            $0.id == session.id && ["paused", "heldInstead"].contains($0.mprisPause) && $0.mprisOwedPlay == [busName]
        }
        call.terminate()
        let callEnded = ContinuousClock.now
        try await waitForStatus("Playing")
        let resumed = ContinuousClock.now - callEnded
        print("audacious: call spawned → Paused \(paused.formatted(.units(allowed: [.milliseconds]))) (playerctl polls); call ended → Playing \(resumed.formatted(.units(allowed: [.milliseconds])))")
        try await rig.waitForPlayerSession("resumed by us: no pause, nothing owed", player: busName) {
            $0.mprisPause == "none" && $0.mprisOwedPlay.isEmpty && $0.mprisPlayers[busName] == "Playing"
        }
        try await eventually("its stream plays to the headphones again; daemon:\n\(rig.log)") { try playsToTheHeadphones() }

        // Silent mode: media plays on, heard.
        try oracle.ctl(["silent", "on"])
        let beep = try rig.sandbox.spawn("aplay", ["-q", try rig.sandbox.testTone(seconds: 1).path])
        var beepSession: SessionOracle.Session?
        try await eventually("silent mode is on: a beep is silenced; daemon:\n\(rig.log)") {
            beepSession = try oracle.session(ofProcess: beep.pid) ?? beepSession
            return beepSession?.silenced == true
        }
        let after = try #require(try oracle.session(ofProcess: player.process.pid))
        #expect(after.silenced == false && after.category == "playback", "\(after.summary)")
        #expect(try player.status() == "Playing")
        for id in after.streams {
            let node = try #require(try rig.sandbox.dump().nodes.first { $0.id == id })
            #expect(node.mute == false && node.softMute != true, "it is heard: \(node.props ?? [:])")
        }
    }
}
