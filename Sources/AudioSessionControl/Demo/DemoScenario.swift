import Foundation
import PipeWireGraph
import PipeWireSandbox

/// The scripted scenario `audiosessionctl demo` plays on a private PipeWire with virtual
/// devices. Each step acts like a user or an app would, then waits (with a deadline) until an
/// independent observer sees the daemon's reaction, and prints it.
struct DemoScenario {
    let timeline: DemoTimeline
    let daemonPath: String

    func run() throws {
        timeline.heading("audiosession demo — a private PipeWire with virtual devices; your own audio is untouched.")
        let sandbox = try PrivatePipeWire(devices: [
            VirtualDevice(name: "speaker", description: "Built-in Speaker"),
            VirtualDevice(name: "headphones", description: "Headphones"),
            VirtualDevice(name: "mic", description: "Microphone", kind: .source, positions: ["MONO"]),
        ])
        defer { sandbox.stop() }
        timeline.say(.pipewire, "private daemon up (pid \(sandbox.daemonPID.map(String.init) ?? "?")) in \(sandbox.runtimeDirectory.path)")
        timeline.note("devices: speaker, headphones (sinks); mic (source)")

        let observer = DemoObserver(remote: sandbox.socketPath)
        defer { observer.stop() }

        let daemon = try sandbox.spawn(daemonPath, [])
        try waitUntil(timeout: .seconds(10), "audiosessiond attaches and publishes the default devices") {
            observer.snapshot.defaultAudioSinkName != nil
        }
        timeline.say(.daemon, "audiosessiond attached (pid \(daemon.pid)) and published the default output: \(observer.snapshot.defaultAudioSinkName ?? "none")")

        let tone = try sandbox.testTone(seconds: 30)
        try sandbox.play(role: "Music", file: tone, extraArguments: ["-P", "{ node.name = music application.name = \"Music Player\" }"])
        timeline.say(.app, "Music Player starts: pw-cat --media-role Music")
        let initialDefault = observer.snapshot.defaultAudioSinkName ?? "headphones"
        try observer.waitUntilLinked("music", to: [initialDefault])
        timeline.say(.graph, "music → \(initialDefault) (follows the default)")

        let other = initialDefault == "speaker" ? "headphones" : "speaker"
        try sandbox.play(role: "Notification", file: tone, extraArguments: ["-P", "{ node.name = chime }", "--target", other])
        timeline.say(.app, "a chime asks for the \(other) by name: pw-cat --target \(other)")
        try observer.waitUntilLinked("chime", to: [other])
        timeline.say(.graph, "chime → \(other) (its own target is honoured)")

        try sandbox.destroyNode(named: initialDefault)
        timeline.say(.user, "unplugs the \(initialDefault)")
        try observer.waitUntilLinked("music", to: [other])
        timeline.say(.graph, "music → \(other) (its device went away: it moved to the new default)")
        timeline.say(.daemon, "default output is now \(observer.snapshot.defaultAudioSinkName ?? "none")")

        try sandbox.createNullSink(named: "usb-dac", description: "USB DAC")
        try sandbox.run("pw-metadata", ["-n", "default", "0", "default.configured.audio.sink", #"{"name":"usb-dac"}"#, "Spa:String:JSON"])
        timeline.say(.user, "plugs in a USB DAC and makes it the default")
        try observer.waitUntilLinked("music", to: ["usb-dac"])
        try observer.waitUntilLinked("chime", to: [other])
        timeline.say(.graph, "music → usb-dac; chime stays on \(other) (pinned)")

        kill(daemon.pid, SIGTERM)
        let status = try daemon.waitForExit(timeout: .seconds(5))
        timeline.say(.daemon, "SIGTERM → exited with status \(status)")
        try waitUntil(timeout: .seconds(5), "the daemon's links are gone with it") {
            observer.devices(linkedTo: "music").isEmpty
        }
        timeline.say(.check, "its links went with it: nothing it made outlives it")
        guard status == 0 else { throw DemoError.daemonFailed(status: status, log: daemon.errorOutput) }
    }
}

enum DemoError: Error, CustomStringConvertible {
    case daemonFailed(status: Int32, log: String)
    case daemonNotFound(String)

    var description: String {
        switch self {
        case .daemonFailed(let status, let log): "audiosessiond exited with status \(status); its log:\n\(log)"
        case .daemonNotFound(let path): "cannot find audiosessiond (looked at \(path) and in PATH); run `make build` first"
        }
    }
}
