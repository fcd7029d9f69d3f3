import AudioSession
import Foundation
import PipeWireSandbox

/// The private desktop `simulate` runs an app on: a private PipeWire (with pipewire-pulse for
/// pulse clients) whose sound card has a speaker, a headphone jack, an internal microphone and
/// a headset's; a private session bus with a simulated logind on it; and audiosessiond on them
/// with the shipped rules. Nothing of the user's own session is touched. The actions are the
/// ones a developer asks for: each is carried out as a user or another app would, and returns
/// once its own effect is there (a stream exists, a jack flipped, a device is gone).
// Unchecked: its actions are called by the `simulate` command's one loop, one at a time and
// awaited; the signal handler calls only `stop()`, which reaches `let`s (the private servers and
// the login), each safe to stop from any thread.
final class SimulatedDesktop: @unchecked Sendable {
    let timeline: DemoTimeline
    let sandbox: PrivatePipeWire
    let bus: PrivateSessionBus
    private(set) var card: RouteDevice
    let login: SimulatedLogin
    let daemon: ManagedProcess
    private let tone: URL
    private let chime: URL
    private var call: ManagedProcess?
    private var music: ManagedProcess?
    private var headphonesIn = false
    private var usbIn = false

    /// The programs it runs: a missing one is one clear line before anything starts.
    static let tools = ["pipewire", "pipewire-pulse", "pw-cat", "pw-cli", "pw-dump", "pw-metadata", "dbus-daemon"]

    static func start(timeline: DemoTimeline, daemonPath: String) async throws -> SimulatedDesktop {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        let missing = tools.filter { tool in !path.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") } }
        guard missing.isEmpty else { throw SimulatorError.missingTools(missing) }
        let sandbox = try PrivatePipeWire(devices: [])
        do {
            let bus = try PrivateSessionBus()
            do {
                return try await SimulatedDesktop(timeline: timeline, daemonPath: daemonPath, sandbox: sandbox, bus: bus)
            } catch {
                bus.stop()
                throw error
            }
        } catch {
            sandbox.stop()
            throw error
        }
    }

    private init(timeline: DemoTimeline, daemonPath: String, sandbox: PrivatePipeWire, bus: PrivateSessionBus) async throws {
        self.timeline = timeline
        self.sandbox = sandbox
        self.bus = bus
        try sandbox.startPulse()
        card = try sandbox.startRouteDevice(name: "card", description: "Built-in Audio")
        timeline.say(.pipewire, "private PipeWire up in \(sandbox.runtimeDirectory.path)")
        timeline.note("sound card 'card': speaker, headphone jack (out), internal microphone, headset microphone (in)")
        login = try await SimulatedLogin(busAddress: bus.address)
        let state = sandbox.directory.appendingPathComponent("state").path
        let config = sandbox.directory.appendingPathComponent("config").path
        daemon = try sandbox.spawn(daemonPath, ["--state-dir", state], extraEnvironment: [
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "DBUS_SYSTEM_BUS_ADDRESS": bus.address,
            "XDG_SESSION_ID": SimulatedLogin.sessionID, "XDG_CONFIG_HOME": config, "XDG_STATE_HOME": state,
        ])
        // Another app's call or music lasts half an hour (8 kHz mono: 29 MB, written in a blink).
        tone = try TestTone.write(to: sandbox.directory.appendingPathComponent("other-app.wav"), seconds: 1800, sampleRate: 8000, channels: 1)
        chime = try TestTone.write(to: sandbox.directory.appendingPathComponent("notification.wav"), seconds: 1, frequency: 880)
        let daemon = self.daemon
        try waitUntil(timeout: .seconds(10), "audiosessiond serves the session API") {
            guard daemon.isRunning else { throw SimulatorError.setupFailed("audiosessiond exited: \(daemon.errorOutput)") }
            return daemon.errorOutput.contains("serving org.audiosession.Manager1")
        }
        timeline.say(.daemon, "audiosessiond up (pid \(daemon.pid)), shipped rules, session bus \(bus.address)")
    }

    /// Devices that may be present from the start besides the sound card (`--devices`).
    enum ExtraDevice: String, CaseIterable {
        case headset, usbDAC = "usb-dac", usbMic = "usb-mic", hdmi

        var meaning: String {
            switch self {
            case .headset: "a headset in the card's jack"
            case .usbDAC: "a USB DAC (also usb in / usb out)"
            case .usbMic: "a USB microphone"
            case .hdmi: "a TV on HDMI"
            }
        }
    }

    /// Puts the extra devices there, before the app starts.
    func add(_ devices: [ExtraDevice]) async throws {
        for device in devices {
            switch device {
            case .headset: try await perform(.headphones(true))
            case .usbDAC: try await perform(.usb(true))
            case .usbMic:
                timeline.say(.user, "a USB microphone is plugged in")
                try sandbox.run("pw-cli", ["create-node", "adapter", Self.usbMicrophone])
                try sandbox.configureDevicePorts(named: "usb-mic", positions: ["MONO"])
            case .hdmi:
                timeline.say(.user, "a TV is connected over HDMI")
                try sandbox.createNullSink(named: "hdmi-tv", description: "TV (HDMI)")
            }
        }
    }

    /// A source that says it is on USB, as a USB microphone's does.
    static let usbMicrophone = """
        { factory.name = support.null-audio-sink node.name = "usb-mic" node.description = "USB Microphone" \
        media.class = "Audio/Source" audio.position = [ MONO ] object.linger = true device.bus = "usb" \
        adapter.auto-port-config = { mode = dsp monitor = true position = preserve } }
        """

    /// What an app run here needs to find these servers (and nothing of the user's).
    var appEnvironment: [String: String] {
        bus.environment.merging(["PULSE_SERVER": "unix:\(sandbox.pulseSocketPath)"]) { $1 }
    }

    func launch(_ program: String, _ arguments: [String]) throws -> ManagedProcess {
        try sandbox.spawn(program, arguments, extraEnvironment: appEnvironment)
    }

    /// Carries out one action and returns once its own effect is there.
    func perform(_ action: SimulatorAction) async throws {
        switch action {
        case .call(true):
            guard call == nil else { return timeline.note("a call is already going on") }
            timeline.say(.user, "a call comes in: 'Phone (simulated)' plays a Communication stream")
            call = try stream(named: "simulated-call", app: "Phone (simulated)", role: "Communication", file: tone)
        case .call(false):
            guard let call else { return timeline.note("no call to end") }
            timeline.say(.user, "the call ends")
            call.terminate()
            self.call = nil
            try waitUntil(timeout: .seconds(5), "the call's stream is gone") { try sandbox.dump().node(named: "simulated-call") == nil }
        case .headphones(let plugged):
            guard plugged != headphonesIn else { return timeline.note("the headset is already \(plugged ? "in" : "out")") }
            timeline.say(.user, plugged ? "plugs a headset into the jack" : "pulls the headset out")
            plugged ? try card.plugHeadphones() : try card.unplugHeadphones()
            headphonesIn = plugged
        case .usb(let plugged):
            guard plugged != usbIn else { return timeline.note("the USB DAC is already \(plugged ? "in" : "out")") }
            timeline.say(.user, plugged ? "plugs in a USB DAC" : "unplugs the USB DAC")
            if plugged {
                try sandbox.run("pw-cli", ["create-node", "adapter", DemoRoutesAct.usbDAC])
                try sandbox.configureDevicePorts(named: "usb-dac", positions: ["FL", "FR"])
            } else {
                try sandbox.destroyNode(named: "usb-dac")
            }
            usbIn = plugged
        case .silentMode(let on):
            timeline.say(.user, "flips the silent switch \(on ? "on" : "off")")
            try await manager { try await $0.setSilentMode(on) }
        case .screenLocked(let locked):
            timeline.say(.user, locked ? "locks the screen" : "unlocks the screen")
            try login.lock(locked)
        case .sleep(let asleep):
            timeline.say(.user, asleep ? "suspends the machine" : "wakes the machine up")
            try login.prepareForSleep(asleep)
        case .mediaServicesReset:
            timeline.say(.user, "PipeWire restarts (media services lost, then reset)")
            try sandbox.restart()
            card.process.terminate()
            card = try sandbox.startRouteDevice(name: "card", description: "Built-in Audio")
            if headphonesIn { try card.plugHeadphones() }
            usbIn = false
            call = nil
            music = nil
            timeline.say(.pipewire, "a new PipeWire is up: the card is back\(headphonesIn ? " with the headset in" : ""); other apps' streams are gone")
        case .notification:
            timeline.say(.user, "a notification sound plays (1 s)")
            _ = try stream(named: "simulated-notification", app: "Notifications (simulated)", role: "Notification", file: chime)
        case .music(true):
            guard music == nil else { return timeline.note("the other app's music already plays") }
            timeline.say(.user, "another app, 'Music (simulated)', starts its music")
            music = try stream(named: "simulated-music", app: "Music (simulated)", role: "Music", file: tone)
        case .music(false):
            guard let music else { return timeline.note("the other app's music does not play") }
            timeline.say(.user, "the other app's music stops")
            music.terminate()
            self.music = nil
        case .wait(let duration):
            try await Task.sleep(for: duration)
        case .status, .history, .help, .quit:
            break
        }
    }

    /// Another app's stream (pw-cat), returned once it exists in the graph.
    private func stream(named name: String, app: String, role: String, file: URL) throws -> ManagedProcess {
        let process = try sandbox.play(
            role: role, file: file, extraArguments: ["-P", "{ node.name = \(name) application.name = \"\(app)\" }"])
        try waitUntil(timeout: .seconds(5), "\(name) exists") {
            guard process.isRunning else { throw SimulatorError.setupFailed("pw-cat exited: \(process.errorOutput)") }
            return try sandbox.dump().node(named: name) != nil
        }
        return process
    }

    private func manager(_ body: (AudioSessionManager) async throws -> Void) async throws {
        let manager = try AudioSessionManager(address: bus.address)
        defer { manager.close() }
        try await body(manager)
    }

    /// Stops everything it started, by PID: the app and other clients, the daemon, the servers.
    /// Stops everything and removes the sandbox's files: on a signal the process exits right
    /// after, before any deinit could.
    func stop() {
        login.close()
        sandbox.stop()
        bus.stop()
        try? FileManager.default.removeItem(at: sandbox.directory)
    }
}
