import Foundation
import PipeWireSandbox
import Testing

/// More of the real-app corpus (docs/real-apps.md) on a pure PulseAudio 16 server, beside
/// ``PulseAudioRealAppTests`` (whose helpers these reuse): command-line players (mpg123 over
/// pulse, sox's `play` and ffplay over SDL's pulse driver), a speech synthesizer that plays by
/// itself (flite), two baresip calling each other and a game (Chocolate Doom) — ALSA programs
/// through ALSA's pulse plugin (``PulseAudioWithALSA``). What the daemon made of each is read from
/// `audiosessionctl status --json` and `monitor --json`, what the server does from a libpulse
/// observer (``PulseWatcher``), never from a log.
@Suite("More real apps on PulseAudio", .serialized)
struct PulseAudioMoreRealAppTests {
    typealias Rig = PulseAudioSessionTests.Rig
    typealias Session = SessionOracle.Session
    typealias Apps = PulseAudioRealAppTests

    static let holdSink = PulseAudioRealAppTests.holdSink

    // MARK: - Command-line players: media, held by a call, given back

    /// mpg123 (`-o pulse`, its own pulse output) playing a 60 s MP3: media playback by the rules;
    /// a call holds it (its stream on the parking sink, or corked) and gives it back after;
    /// silent mode leaves it heard at its own volume.
    @Test func mpg123OverPulseIsMediaHeldByACallAndGivenBack() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let mp3 = rig.pulse.directory.appendingPathComponent("tone.mp3")
        _ = try ManagedProcess.run(
            "ffmpeg", ["-loglevel", "error", "-y", "-i", rig.tone.path, mp3.path], environment: rig.pulse.environment,
            logDirectory: rig.pulse.logDirectory, timeout: .seconds(60))
        let player = try rig.pulse.spawn("mpg123", ["-q", "-o", "pulse", mp3.path])
        defer { player.terminate() }
        try await Self.expectMediaHeldByACallAndGivenBack(rig, player, name: "mpg123")
    }

    /// sox's `play` (ALSA, its only driver here, through the pulse plugin) playing a 60 s WAV:
    /// media playback by the rules, held by a call and given back, heard in silent mode.
    @Test func soxPlayOverALSAIsMediaHeldByACallAndGivenBack() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let alsa = try PulseAudioWithALSA(rig.pulse)
        let player = try alsa.spawn("play", ["-q", rig.tone.path], extraEnvironment: ["AUDIODRIVER": "alsa"])
        defer { player.terminate() }
        try await Self.expectMediaHeldByACallAndGivenBack(rig, player, name: "sox play")
    }

    /// ffplay over SDL's pulse driver (`-nodisp -autoexit`, SDL's dummy video) playing a 60 s
    /// WAV: media playback by the rules, held by a call and given back, heard in silent mode.
    @Test func ffplayOverSDLsPulseDriverIsMediaHeldByACallAndGivenBack() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let player = try rig.pulse.spawn(
            "ffplay", ["-nodisp", "-autoexit", "-loglevel", "error", rig.tone.path],
            extraEnvironment: ["SDL_AUDIODRIVER": "pulseaudio", "SDL_VIDEODRIVER": "dummy"])
        defer { player.terminate() }
        try await Self.expectMediaHeldByACallAndGivenBack(rig, player, name: "ffplay")
    }

    /// A player that sets no role (`player`, already started) is an active playback / media
    /// session classified by the rules, heard; a phone-role stream holds it — every sink input
    /// of it on the parking sink or corked, for as long as the call plays — and its end gives it
    /// back (on a real sink, uncorked, unmuted; `interruptionBegan` then `interruptionEnded` on
    /// the bus); silent mode leaves it heard at its own volume.
    static func expectMediaHeldByACallAndGivenBack(_ rig: Rig, _ player: ManagedProcess, name: String) async throws {
        let monitor = try Apps.monitor(rig)
        defer { monitor.terminate() }
        var session: Session?
        try await eventually(
            "\(name) (pid \(player.pid)) is an active session that plays; its output: \(player.errorOutput.suffix(500)); daemon:\n\(rig.daemon.log)",
            timeout: .seconds(20)
        ) {
            session = try Apps.session(rig, ofProcess: player.pid)
            return session?.activity == "active" && !Apps.pid(player.pid, plays: rig).isEmpty
        }
        let found = try #require(session)
        print("\(name) on PulseAudio: \(found.summary); plays \(Apps.pid(player.pid, plays: rig))")
        #expect(
            found.category == "playback" && found.priorityClass == "media" && found.classifiedBy.hasPrefix("rules"),
            "\(name) is media playback by the rules: \(found.summary)")
        #expect(isHeard(player.pid, rig), "\(name) is heard: \(Apps.pid(player.pid, plays: rig))")

        // A call holds it while it plays.
        let call = try rig.pulse.play(rig.tone, properties: ["media.role": "phone"])
        defer { call.terminate() }
        try await eventually(
            "the call holds \(name): \(Apps.pid(player.pid, plays: rig)); session \((try? Apps.session(rig, ofProcess: player.pid))?.summary ?? "none"); daemon:\n\(rig.daemon.log)"
        ) {
            isHeld(player.pid, rig)
        }
        // Held for as long as the call plays (a second of it, every 20 ms).
        let heldSince = ContinuousClock.now
        while ContinuousClock.now - heldSince < .seconds(1) {
            #expect(isHeld(player.pid, rig), "\(name) stays held during the call: \(Apps.pid(player.pid, plays: rig))")
            try await Task.sleep(for: .milliseconds(20))
        }
        let whileHeld = Apps.pid(player.pid, plays: rig)
        print("\(name) during the call: \(whileHeld)")
        #expect(player.isRunning, "\(name) plays on (held, not ended): \(player.errorOutput.suffix(300))")
        call.terminate()
        try await eventually(
            "\(name) is given back after the call: \(Apps.pid(player.pid, plays: rig)); daemon:\n\(rig.daemon.log)", timeout: .seconds(10)
        ) {
            try isHeard(player.pid, rig) && (Apps.session(rig, ofProcess: player.pid))?.activity == "active"
        }
        let decisions = Apps.decisions(in: monitor)
        #expect(decisions.contains { $0.session == found.id && $0.kind == "interruptionBegan" }, "the call interrupted \(name): \(decisions)")
        #expect(decisions.contains { $0.session == found.id && $0.kind == "interruptionEnded" }, "the call's end gave \(name) back: \(decisions)")

        // Silent mode: media plays on, heard at its own volume.
        try rig.ctl(["silent", "on"])
        let beep = try rig.pulse.spawn("paplay", ["--client-name=beep", try rig.pulse.testTone(seconds: 1).path])
        defer { beep.terminate() }
        var beepSession: Session?
        try await eventually("silent mode is on: a beep is silenced; daemon:\n\(rig.daemon.log)") {
            beepSession = try Apps.session(rig, ofProcess: beep.pid) ?? beepSession
            return beepSession?.silenced == true
        }
        let after = try #require(try Apps.session(rig, ofProcess: player.pid))
        #expect(!after.silenced && after.category == "playback", "silent mode leaves \(name): \(after.summary)")
        let heard = Apps.pid(player.pid, plays: rig)
        #expect(
            !heard.isEmpty && heard.allSatisfy { $0.volume == 65536 && !$0.muted && !$0.corked && $0.sink != holdSink },
            "\(name) is heard at its own volume in silent mode: \(heard)")
        try rig.ctl(["silent", "off"])
        player.terminate()
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
    }

    /// Every sink input of `pid` on a real sink, uncorked, unmuted (and at least one).
    static func isHeard(_ pid: Int32, _ rig: Rig) -> Bool {
        let plays = Apps.pid(pid, plays: rig)
        return !plays.isEmpty && plays.allSatisfy { $0.sink != nil && $0.sink != holdSink && !$0.muted && !$0.corked }
    }

    /// Every sink input of `pid` on the parking sink or corked (and at least one).
    static func isHeld(_ pid: Int32, _ rig: Rig) -> Bool {
        let plays = Apps.pid(pid, plays: rig)
        return !plays.isEmpty && plays.allSatisfy { $0.sink == holdSink || $0.corked }
    }

    // MARK: - flite

    /// flite speaking through ALSA's pulse plugin, by itself: voicePrompt (class navigation) by
    /// the rules' speech engines; it ducks the music (a `music`-role paplay; its sink input's
    /// volume, read from the server) while its words are heard, and gives it back after.
    @Test func fliteSpeaksAndDucksTheMusicThenGivesItBack() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let alsa = try PulseAudioWithALSA(rig.pulse)
        let (music, musicVolume) = try await Self.musicAtFullVolume(rig)
        defer { music.terminate() }
        let musicSession = try #require(try Apps.session(rig, ofProcess: music.pid))

        let flite = try alsa.spawn("flite", ["-t", "The quick brown fox jumps over the lazy dog, and over the lazy dog again, twice."])
        defer { flite.terminate() }
        let started = ContinuousClock.now
        // The music's volume and flite's sink inputs every 10 ms from flite's start until the music
        // is back at full volume after flite ended.
        var timeline: [String] = []
        var session: Session?
        var lowestWhileHeard: UInt32 = 65536
        var duckedWhileSilent: [String] = []
        var voiceSeen = false
        var fliteEnded: ContinuousClock.Instant?
        var back: ContinuousClock.Instant?
        while ContinuousClock.now - started < .seconds(30) {
            let at = ContinuousClock.now - started
            let volume = musicVolume()
            let voice = Apps.pid(flite.pid, plays: rig)
            if session?.mode != "voicePrompt" { session = (try? Apps.session(rig, ofProcess: flite.pid)) ?? session }
            let state = "music \(volume.map(String.init) ?? "?"), flite \(voice)"
            if timeline.last?.hasSuffix(state) != true { timeline.append("\(at.formatted(.units(allowed: [.milliseconds]))): \(state)") }
            if !voice.isEmpty { voiceSeen = true }
            if !voice.isEmpty, let volume { lowestWhileHeard = min(lowestWhileHeard, volume) }
            if voice.isEmpty, fliteEnded == nil, !flite.isRunning { fliteEnded = .now }
            if fliteEnded != nil, volume == 65536 {
                back = .now
                break
            }
            // Before flite's voice ever appeared on the server, the music must not be ducked.
            if !voiceSeen, let volume, volume < 65536 {
                duckedWhileSilent.append("\(at): \(volume)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let found = try #require(session, "flite had a session; its output: \(flite.errorOutput.suffix(300)); daemon:\n\(rig.daemon.log)")
        print("flite on PulseAudio: \(found.summary); the music's volume: \(timeline.joined(separator: "; "))")
        #expect(found.mode == "voicePrompt" && found.priorityClass == "navigation", "flite is speech: \(found.summary)")
        #expect(lowestWhileHeard < 50_000, "the music was ducked while flite was heard (lowest \(lowestWhileHeard)): \(timeline.joined(separator: "\n"))\ndaemon:\n\(rig.daemon.log)")
        #expect(duckedWhileSilent.isEmpty, "the music was ducked before flite played: \(duckedWhileSilent)")
        #expect(try flite.waitForExit(timeout: .seconds(5)) == 0, "flite spoke to the end: \(flite.errorOutput.suffix(300))")
        let ended = try #require(fliteEnded, "flite ended within 30 s: \(timeline.joined(separator: "\n"))")
        let given = try #require(back, "the music is back at full volume after flite: \(timeline.joined(separator: "\n"))\ndaemon:\n\(rig.daemon.log)")
        print("flite on PulseAudio: the music back \((given - ended).formatted(.units(allowed: [.milliseconds]))) after flite's end")
        #expect(given - ended < .seconds(3), "the music came back \(given - ended) after flite")
        let musicNow = try #require(try Apps.session(rig, ofProcess: music.pid))
        #expect(musicNow.id == musicSession.id && musicNow.activity == "active", "the music plays on: \(musicNow.summary)")
        #expect(Self.isHeard(music.pid, rig), "the music is heard: \(Apps.pid(music.pid, plays: rig))")
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
    }

    /// A `music`-role paplay playing at full volume, and its sink input's volume as the server
    /// has it (nil unless it has exactly one).
    static func musicAtFullVolume(_ rig: Rig) async throws -> (ManagedProcess, () -> UInt32?) {
        let music = try rig.pulse.play(rig.tone, properties: ["media.role": "music"])
        let volume = { () -> UInt32? in
            let plays = Apps.pid(music.pid, plays: rig)
            return plays.count == 1 ? plays[0].volume : nil
        }
        try await eventually("the music plays at full volume: \(Apps.pid(music.pid, plays: rig))") { volume() == 65536 }
        return (music, volume)
    }

    // MARK: - Festival

    /// Festival saying three sentences with the audio command its manual gives (one `aplay` per
    /// sentence through a shell, ALSA's pulse plugin): each aplay is festival's helper, so every
    /// sentence is festival's session, voicePrompt by the rules' speech engines, never an app of
    /// its own; the music (a `music`-role paplay, its sink input's volume read from the server)
    /// is ducked while festival speaks and given back after.
    @Test func festivalsAplayPerSentenceIsFestivalsSpeech() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let alsa = try PulseAudioWithALSA(rig.pulse)
        let (music, musicVolume) = try await Self.musicAtFullVolume(rig)
        defer { music.terminate() }

        let festival = try alsa.spawn("festival", RealFestival.arguments)
        defer { festival.terminate() }
        // The aplays seen playing while festival's session had a stream.
        var helpersHeard: Set<Int32> = []
        var notSpeech: Set<String> = []
        var aplayApps: Set<String> = []
        var lowestWhileSpoken: UInt32 = 65536
        try await eventually("festival said its three sentences; its output: \(festival.errorOutput.suffix(300)); daemon:\n\(rig.daemon.log)", timeout: .seconds(60)) {
            let helpers = RealBrowser.descendants(of: festival.pid).filter { !Apps.pid($0, plays: rig).isEmpty }
            let sessions = try Apps.sessions(rig)
            aplayApps.formUnion(sessions.filter { ($0.fields["app"] as? String) == "aplay" }.map(\.summary))
            if let session = sessions.first(where: { $0.appIdentity == "process:\(festival.pid)" }), !session.streams.isEmpty {
                helpersHeard.formUnion(helpers)
                if session.mode != "voicePrompt" || session.fields["app"] as? String != "festival" { notSpeech.insert(session.summary) }
                if let volume = musicVolume() { lowestWhileSpoken = min(lowestWhileSpoken, volume) }
            }
            return !festival.isRunning
        }
        #expect(festival.exitStatus == 0, "festival spoke to the end: \(festival.errorOutput.suffix(300))")
        #expect(helpersHeard.count >= 2, "the sentences, each its own aplay, were festival's session: aplays \(helpersHeard)")
        #expect(aplayApps.isEmpty, "no sentence is an app of its own: \(aplayApps)")
        #expect(notSpeech.isEmpty, "festival's session is speech: \(notSpeech)")
        #expect(lowestWhileSpoken < 50_000, "the music was ducked while festival spoke (lowest \(lowestWhileSpoken))")
        try await eventually("the music is back at full volume after festival") { musicVolume() == 65536 }
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
    }

    // MARK: - Two baresip

    /// Two baresip (its ALSA module, through ALSA's pulse plugin) call each other on loopback:
    /// each end is a call (playAndRecord / voiceChat, class communication) — by the rules as
    /// `baresip`, by what its streams do when copied as `softphone`, a name no rule knows — both
    /// heard to the end of the call: every sink input on a real sink, every source output on a
    /// real source, none ever on a parking device, no `interruptionBegan` for either; mpv, the
    /// music, is paused over MPRIS during the call and plays again after.
    @Test(arguments: ["baresip", "softphone"])
    func twoBaresipCallingEachOtherAreBothHeardAndPauseTheMusic(binary: String) async throws {
        let stage = try await CallStage()
        defer { stage.stop() }
        let calleePort = LoopbackPorts.free()
        let callee = try RealSIP(port: calleePort, binary: binary, in: stage.alsa)
        defer { callee.stop() }
        try await eventually("the callee is ready: \(callee.process.output)", timeout: .seconds(15)) { callee.process.output.contains("baresip is ready") }
        let caller = try RealSIP(port: LoopbackPorts.free(avoiding: [calleePort]), calling: calleePort, binary: binary, in: stage.alsa)
        defer { caller.stop() }
        try await stage.expectCall(
            binary, between: caller.process, and: callee.process,
            isCall: { binary == "baresip" ? $0.classifiedBy.hasPrefix("rules") : $0.classifiedBy == "call" }
        ) {
            caller.stop()
            callee.stop()
        }
    }

    // MARK: - Two Twinkle under a name no rule knows

    /// Two Twinkle phones (its console mode, its own audio code over ALSA, through ALSA's pulse
    /// plugin; a ring-back tone on the caller until the callee answers), copied as `deskphone`, a name
    /// no rule knows. Twinkle declares its role itself (it sets `PULSE_PROP_media.role`, which
    /// libpulse reads: so here, through the pulse plugin, though not through PipeWire's ALSA
    /// plugin), and each end is a call by the rules for that role, whatever its name. Both heard
    /// to the end of the call, never parked, never interrupted; the music is paused over MPRIS
    /// and plays again after.
    @Test func twoTwinklePhonesUnderAnotherNameAreCallsByTheRoleTheyDeclare() async throws {
        let stage = try await CallStage()
        defer { stage.stop() }
        let (caller, callee) = try await RealTwinkle.call(as: "deskphone", in: stage.alsa)
        defer {
            caller.stop()
            callee.stop()
        }
        try await stage.expectCall(
            "twinkle", between: caller.process, and: callee.process,
            isCall: { $0.classifiedBy.hasPrefix("rules") }
        ) {
            caller.send("bye")
            caller.stop()
            callee.stop()
        }
    }

    /// A call between two phones on a PulseAudio rig (ALSA programs through the pulse plugin),
    /// with music playing under a decision monitor and the parking watch, checked the same
    /// whatever the phones.
    final class CallStage {
        let rig: Rig
        let alsa: PulseAudioWithALSA
        let monitor: ManagedProcess
        let music: Session
        let parking: Apps.ParkingWatch

        init() async throws {
            rig = try Rig()
            do {
                alsa = try PulseAudioWithALSA(rig.pulse)
                monitor = try Apps.monitor(rig)
                music = try await Apps.startMusic(rig)
            } catch {
                rig.stop()
                throw error
            }
            parking = Apps.ParkingWatch(rig.watcher)
        }

        func stop() {
            parking.stop()
            monitor.terminate()
            rig.stop()
        }

        /// Both ends heard (``PulseCall``), the music paused over MPRIS, each end playAndRecord /
        /// voiceChat, class communication, classified as `isCall` says; heard every 100 ms for 3
        /// s, never parked, never interrupted; after `hangUp`, the music plays again and the
        /// daemon exits cleanly.
        func expectCall(
            _ name: String, between caller: ManagedProcess, and callee: ManagedProcess, isCall: (Session) -> Bool,
            hangUp: () -> Void
        ) async throws {
            let call = PulseCall(ends: [caller.pid, callee.pid])
            try await eventually(
                "both ends are heard: \(call.state(rig))\ncaller:\n\(caller.output.suffix(2000))\ncallee:\n\(callee.output.suffix(2000))\ndaemon:\n\(rig.daemon.log)",
                timeout: .seconds(20)
            ) { try call.isHeard(rig) }
            try await Apps.waitForMusic(rig, "Paused")
            for (end, pid) in [("caller", caller.pid), ("callee", callee.pid)] {
                let session = try #require(try Apps.session(rig, ofProcess: pid))
                print("\(name) on PulseAudio, \(end): \(session.summary) (\(session.fields["classifiedWhy"] ?? "")); plays \(Apps.pid(pid, plays: rig)); captures \(Apps.pid(pid, captures: rig))")
                #expect(
                    session.category == "playAndRecord" && session.mode == "voiceChat" && session.priorityClass == "communication"
                        && isCall(session),
                    "\(end): \(session.summary)")
            }
            try await call.expectHeardThroughout(samples: 30, rig, music: music.id, monitor: monitor, parking: parking)
            hangUp()
            try await Apps.waitForMusic(rig, "Playing")
            #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
        }
    }

    // MARK: - Chocolate Doom

    /// Chocolate Doom with Freedoom over SDL's pulse driver (SDL's dummy video; its title demo
    /// plays sound effects, no music): ambient by the rules' games, it mixes with the music (mpv
    /// plays on, never held), and silent mode silences it (its volume 0 or muted) and gives it
    /// back after.
    @Test func chocolateDoomOverSDLsPulseDriverIsAmbientMixesAndSilentModeSilencesIt() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let monitor = try Apps.monitor(rig)
        defer { monitor.terminate() }
        let music = try await Apps.startMusic(rig)
        let doom = try rig.pulse.spawn(
            "/usr/games/chocolate-doom", ["-iwad", "/usr/share/games/doom/freedoom1.wad", "-nomusic", "-nograbmouse"],
            extraEnvironment: ["SDL_AUDIODRIVER": "pulseaudio", "SDL_VIDEODRIVER": "dummy"])
        defer { doom.terminate() }
        var session: Session?
        try await eventually(
            "Chocolate Doom (pid \(doom.pid)) has a session that plays; its output: \(doom.output.suffix(500)) \(doom.errorOutput.suffix(500)); daemon:\n\(rig.daemon.log)",
            timeout: .seconds(30)
        ) {
            session = try Apps.session(rig, ofProcess: doom.pid)
            return session != nil && !Apps.pid(doom.pid, plays: rig).isEmpty
        }
        let found = try #require(session)
        print("chocolate-doom on PulseAudio: \(found.summary); plays \(Apps.pid(doom.pid, plays: rig))")
        #expect(found.category == "ambient" && found.priorityClass == "media" && found.classifiedBy.hasPrefix("rules"), "\(found.summary)")
        #expect(Self.isHeard(doom.pid, rig), "it is heard: \(Apps.pid(doom.pid, plays: rig))")
        // It mixes: the music plays on beside it (a second of it).
        let since = ContinuousClock.now
        while ContinuousClock.now - since < .seconds(1) {
            try await Task.sleep(for: .milliseconds(100))
            #expect(Apps.pid(doom.pid, plays: rig).allSatisfy { $0.sink != Self.holdSink }, "Chocolate Doom is not held")
        }
        try await Apps.waitForMusic(rig, "Playing")
        let decisions = Apps.decisions(in: monitor)
        #expect(!decisions.contains { $0.session == music.id && $0.kind == "interruptionBegan" }, "the game held the music: \(decisions)")

        try rig.ctl(["silent", "on"])
        try await eventually("silent mode silences Chocolate Doom: \(Apps.pid(doom.pid, plays: rig)); daemon:\n\(rig.daemon.log)") {
            let plays = Apps.pid(doom.pid, plays: rig)
            return try Apps.session(rig, ofProcess: doom.pid)?.silenced == true && !plays.isEmpty
                && plays.allSatisfy { $0.volume == 0 || $0.muted }
        }
        try rig.ctl(["silent", "off"])
        try await eventually("silent mode's end gives Chocolate Doom back: \(Apps.pid(doom.pid, plays: rig)); daemon:\n\(rig.daemon.log)") {
            let plays = Apps.pid(doom.pid, plays: rig)
            return try Apps.session(rig, ofProcess: doom.pid)?.silenced == false && !plays.isEmpty
                && plays.allSatisfy { $0.volume == 65536 && !$0.muted }
        }
        #expect(doom.isRunning, "Chocolate Doom runs on: \(doom.errorOutput.suffix(300))")
        doom.terminate()
        #expect(try rig.daemon.terminate() == 0, "the daemon's log:\n\(rig.daemon.log)")
    }
}

// MARK: - Helpers


/// A call between two processes on the rig's PulseAudio, as the daemon and the server show it
/// (``PulseAudioRealAppTests/LinphoneCall``'s checks, for any phone).
final class PulseCall {
    let ends: [Int32]
    /// Every session seen for an end.
    private(set) var sessions: Set<UInt64> = []

    init(ends: [Int32]) { self.ends = ends }

    /// Each end is one active call session (class communication) that plays and records, every
    /// sink input of it on a real sink and every source output on a real source, none muted.
    func isHeard(_ rig: PulseAudioSessionTests.Rig) throws -> Bool { try whyNotHeard(rig) == nil }

    /// What keeps the call from being heard now (nil: nothing), read in one pass: a failure's
    /// message says what failed at that moment, not what a later read finds.
    ///
    /// `reopening`: an end may be between two streams of a kind (a phone that opens its device
    /// again mid-call, or a stream not yet placed on a device) — the app's doing, not the
    /// policy's; its session must still be an active call, and no stream of it held or muted.
    func whyNotHeard(_ rig: PulseAudioSessionTests.Rig, reopening: Bool = false) throws -> String? {
        let all = try PulseAudioRealAppTests.sessions(rig)
        for pid in ends {
            guard let session = all.first(where: { $0.appIdentity == "process:\(pid)" }) else { return "pid \(pid) has no session" }
            sessions.insert(session.id)
            guard session.priorityClass == "communication", session.activity == "active" else { return "pid \(pid): \(session.summary)" }
            let plays = PulseAudioRealAppTests.pid(pid, plays: rig)
            let captures = PulseAudioRealAppTests.pid(pid, captures: rig)
            guard reopening || (!plays.isEmpty && !captures.isEmpty) else { return "pid \(pid) plays \(plays), captures \(captures)" }
            let placed = { (device: String?) in device != nil || reopening }
            guard plays.allSatisfy({ placed($0.sink) && $0.sink != PulseAudioRealAppTests.holdSink && !$0.muted }),
                captures.allSatisfy({ placed($0.source) && $0.source != PulseAudioRealAppTests.holdSource && !$0.muted })
            else { return "pid \(pid) plays \(plays), captures \(captures)" }
        }
        return nil
    }

    /// Both ends heard at each of `samples` reads 100 ms apart; then what the monitor and the
    /// parking watch saw since they started: the music (`music`, a session id) paused over
    /// MPRIS by the call, no end of the call interrupted, no stream of an end ever parked.
    func expectHeardThroughout(
        samples: Int, _ rig: PulseAudioSessionTests.Rig, music: UInt64, monitor: ManagedProcess,
        parking: PulseAudioRealAppTests.ParkingWatch
    ) async throws {
        for _ in 1...samples {
            try await Task.sleep(for: .milliseconds(100))
            let why = try whyNotHeard(rig, reopening: true)
            #expect(why == nil, "both ends are heard: \(why ?? "")")
        }
        let decisions = PulseAudioRealAppTests.decisions(in: monitor)
        #expect(
            decisions.contains { $0.session == music && $0.kind == "interruptionBegan" && $0.method == "mpris" },
            "the call paused the music over MPRIS: \(decisions)")
        let held = decisions.filter { sessions.contains($0.session) && $0.kind == "interruptionBegan" }
        #expect(held.isEmpty, "an end of the call was held: \(held); daemon:\n\(rig.daemon.log)")
        let parkedEnds = parking.seen.filter { ends.contains($0.pid) }
        #expect(parkedEnds.isEmpty, "an end's stream was on a parking device: \(parkedEnds); now: \(state(rig)); daemon:\n\(rig.daemon.log)")
    }

    /// What each end is now, for a failure's message.
    func state(_ rig: PulseAudioSessionTests.Rig) -> String {
        let all = (try? PulseAudioRealAppTests.sessions(rig)) ?? []
        return ends.map { pid in
            let session = all.first { $0.appIdentity == "process:\(pid)" }
            return "pid \(pid): \(session?.summary ?? "no session"); plays \(PulseAudioRealAppTests.pid(pid, plays: rig)); captures \(PulseAudioRealAppTests.pid(pid, captures: rig))"
        }.joined(separator: "\n")
    }
}
