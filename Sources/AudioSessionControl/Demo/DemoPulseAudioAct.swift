import Foundation
import PipeWireSandbox
import PulseAudioServer

/// The demo's third act: the same policy on a pure PulseAudio 16 server (no PipeWire), with
/// Debian's role-cork loaded as on a real system. The daemon takes it over, a notification
/// ducks the music and gives back the user's own volume, a call holds the music and gives it
/// back, and at exit the server's modules and the music's stream-restore record are as they
/// were. Seen by the demo's own libpulse client.
struct DemoPulseAudioAct {
    let timeline: DemoTimeline
    let daemonPath: String

    func run() throws {
        timeline.heading("Act 3 — the same policy on a pure PulseAudio 16 server (no PipeWire).")
        guard (try? PrivatePulseAudio.prefix()) != nil else {
            timeline.note("not run: PulseAudio 16 is not unpacked here (scripts/fetch-pulseaudio.sh does it; make demo runs it)")
            return
        }
        let pulse = try PrivatePulseAudio()
        defer { pulse.stop() }
        timeline.say(.server, "private PulseAudio 16 up (pid \(pulse.serverPID.map(String.init) ?? "?")) in \(pulse.runtimeDirectory.path)")
        timeline.note("sinks: speakers (the default), headphones; module-stream-restore and module-role-cork loaded, as Debian's default.pa does")
        let modulesBefore = try pulse.moduleList()
        let watcher = try PulseWatcher(pulse)
        let daemon = try pulse.spawn(daemonPath, ["--backend", "pulseaudio", "--no-bus", "--state-dir", pulse.directory.appendingPathComponent("state").path])
        do {
            try play(with: daemon, in: pulse, watcher: watcher, modulesBefore: modulesBefore)
        } catch let error as DemoError {
            throw error
        } catch {
            throw DemoError.stepFailed(String(describing: error), log: daemon.errorOutput)
        }
    }

    private func play(with daemon: ManagedProcess, in pulse: PrivatePulseAudio, watcher: PulseWatcher, modulesBefore: [String]) throws {
        try waitUntil(timeout: .seconds(10), "audiosessiond takes over the server") {
            watcher.snapshot.sinks.values.contains { $0.name == "audiosession.hold" && $0.state == .suspended }
                && !watcher.snapshot.modules.values.contains { $0.name == "module-role-cork" }
        }
        timeline.say(.daemon, "audiosessiond attached (pid \(daemon.pid)): unloaded module-role-cork while it runs, loaded a suspended sink 'audiosession.hold' for held streams")

        let tone = try pulse.testTone(seconds: 30)
        _ = try pulse.play(tone, properties: ["media.role": "music", "application.name": "Music Player"])
        try watcher.waitForSink(of: "music", "speakers")
        timeline.say(.app, "Music Player starts: paplay (media.role=music) → speakers")
        guard let music = watcher.sinkInput("music") else { return }
        _ = try pulse.pactl(["set-sink-input-volume", String(music.index), "80%"])
        let user = UInt32(0.8 * Double(PulseVolume.norm))
        try watcher.waitForVolume(of: "music") { $0 == user }
        timeline.say(.user, "sets the music to 80 % (pactl set-sink-input-volume)")
        let record = try watcher.streamRestore()["sink-input-by-media-role:music"]

        let chimeStarted = ContinuousClock.now
        let chime = try pulse.play(try pulse.testTone(seconds: 2), properties: ["media.role": "event"])
        timeline.say(.app, "a notification sounds for 2 s: paplay (media.role=event)")
        try watcher.waitForVolume(of: "music") { $0 < user }
        let firstStep = milliseconds(since: chimeStarted)
        // The shipped duck level, 0.3 of the user's volume on a linear scale (PulseAudio's
        // percentages are cubic).
        let ducked = PulseVolume.step(PulseVolume.linear([user]) * 0.3)
        try watcher.waitForVolume(of: "music") { $0 == ducked }
        timeline.say(.server, "music ducked to \(percent(ducked)) = 0.3 × the user's volume: first step \(firstStep), all the way \(milliseconds(since: chimeStarted)) after the notification started (10 ms steps)")
        _ = try chime.waitForExit(timeout: .seconds(10))
        let chimeEnded = ContinuousClock.now
        try watcher.waitForVolume(of: "music", timeout: .seconds(10)) { $0 == user }
        timeline.say(.server, "music back at exactly \(percent(user)) (\(milliseconds(since: chimeEnded)) after the notification ended): the user's own volume")

        let callStarted = ContinuousClock.now
        let call = try pulse.play(tone, properties: ["media.role": "phone", "application.name": "Phone"])
        timeline.say(.app, "a call starts: paplay (media.role=phone)")
        try watcher.waitForSink(of: "music", "audiosession.hold")
        timeline.say(.server, "music → audiosession.hold (\(milliseconds(since: callStarted))): held, its clock stopped; PulseAudio's own role-cork did not act")
        let callEnded = ContinuousClock.now
        call.terminate()
        timeline.say(.app, "the call ends")
        try watcher.waitForSink(of: "music", "speakers")
        timeline.say(.server, "music → speakers (\(milliseconds(since: callEnded))): it plays on where it was")

        kill(daemon.pid, SIGTERM)
        let status = try daemon.waitForExit(timeout: .seconds(5))
        timeline.say(.daemon, "SIGTERM → exited with status \(status)")
        let modulesAfter = try pulse.moduleList()
        let recordAfter = try watcher.streamRestore()["sink-input-by-media-role:music"]
        guard modulesAfter == modulesBefore, recordAfter == record else {
            throw DemoError.stepFailed(
                "the server is not as it was: modules \(modulesAfter) (before \(modulesBefore)), the music's record \(String(describing: recordAfter)) (before \(String(describing: record)))",
                log: daemon.errorOutput)
        }
        timeline.say(.check, "module-role-cork loaded again, audiosession.hold gone, the music's stream-restore record as it was")
    }

    private func percent(_ volume: UInt32) -> String {
        String(format: "%.0f %%", 100 * Double(volume) / Double(PulseVolume.norm))
    }

    private func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return String(format: "%.1f ms", ms)
    }
}
