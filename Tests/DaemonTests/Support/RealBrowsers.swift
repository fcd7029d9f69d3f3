import Foundation
import PipeWireSandbox
import Testing

/// A real browser (firefox-esr or chromium, from Debian) started headless on a sandbox's
/// pipewire-pulse (or a pure PulseAudio's own server), on a local page: a tab playing music, or a WebRTC call that captures the
/// sandbox's microphone and plays the received track. Recipes and the PipeWire facts they
/// produce: docs/real-apps-browsers.md. Installed by scripts/install-browsers.sh.
///
/// Everything lives in one temporary directory (private HOME, profile, the page and its WAV),
/// removed by `stop()`; the browser and every process it started are killed by PID.
/// A browser needs a session manager on the sandbox (the daemon, or WirePlumber): Firefox opens
/// no stream at all while the `default` metadata names no sink.
final class RealBrowser {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case firefox, chromium
        var testDescription: String { rawValue }
        /// `application.name` of its playback stream (Chromium's capture client: "Chromium input").
        var applicationName: String { self == .firefox ? "Firefox" : "Chromium" }
    }

    enum Scenario: Sendable {
        /// An `<audio>` element looping a WAV, autoplay allowed.
        case media
        /// getUserMedia from the default source, looped through two RTCPeerConnections in the
        /// page and played by an `<audio>` element; hangs up after `seconds` when given.
        case call(seconds: Int? = nil)
    }

    let kind: Kind
    let process: ManagedProcess
    /// Private HOME, profile, and the page with its files.
    let directory: URL
    /// The PipeWire sandbox it plays on, whose graph its stream queries read (nil on PulseAudio:
    /// read its sink inputs by ``family`` there).
    private let pipeWire: PrivatePipeWire?
    private var page: URL { directory.appendingPathComponent("page") }

    /// The fixture pages, beside this source tree (not a SwiftPM resource).
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/browsers")

    /// Starts `kind` on the page of `scenario`; on PipeWire, pipewire-pulse is started if it is
    /// not running. Returns at once: wait for its streams with ``waitForStreams(timeout:_:)``.
    init(_ kind: Kind, _ scenario: Scenario, in sandbox: any AudioServerSandbox) throws {
        pipeWire = sandbox as? PrivatePipeWire
        try pipeWire?.startPulse()
        self.kind = kind
        directory = sandbox.directory.appendingPathComponent("\(kind.rawValue)-\(UUID().uuidString.prefix(8))")
        let fileManager = FileManager.default
        let page = directory.appendingPathComponent("page")
        let home = directory.appendingPathComponent("home")
        try fileManager.createDirectory(at: home, withIntermediateDirectories: true)
        try fileManager.copyItem(at: Self.fixtures, to: page)
        let url: String
        switch scenario {
        case .media:
            _ = try TestTone.write(to: page.appendingPathComponent("tone.wav"), seconds: 5)
            url = page.appendingPathComponent("media.html").absoluteString
        case .call(let seconds):
            url = page.appendingPathComponent("call.html").absoluteString + (seconds.map { "?seconds=\($0)" } ?? "")
        }
        let profile = directory.appendingPathComponent("profile")
        let arguments: [String]
        switch kind {
        case .firefox:
            try fileManager.createDirectory(at: profile, withIntermediateDirectories: true)
            try Self.firefoxPreferences.write(to: profile.appendingPathComponent("user.js"), atomically: true, encoding: .utf8)
            arguments = ["--headless", "--no-remote", "--profile", profile.path, url]
        case .chromium:
            arguments = Self.chromiumFlags + ["--user-data-dir=\(profile.path)", url]
        }
        process = try sandbox.spawn(
            kind == .firefox ? "firefox-esr" : "chromium", arguments,
            extraEnvironment: ["HOME": home.path, "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path])
    }

    deinit { stop() }

    /// Chromium as root needs `--no-sandbox`; the fake UI grants the microphone without a
    /// prompt (the capture is real: pulse's default source); loopback candidates let the call
    /// connect on a machine with no network.
    static let chromiumFlags = [
        "--headless=new", "--no-sandbox", "--no-first-run", "--no-default-browser-check", "--disable-gpu",
        "--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--autoplay-policy=no-user-gesture-required", "--use-fake-ui-for-media-stream",
        "--allow-loopback-in-peer-connection", "--enable-logging=stderr",
    ]

    /// Autoplay allowed, the microphone granted with no prompt and real (not Firefox's fake
    /// device), loopback ICE candidates, nothing that reaches for the network, and the page's
    /// console.log on stderr.
    static let firefoxPreferences = """
        user_pref("media.autoplay.default", 0);
        user_pref("media.autoplay.blocking_policy", 0);
        user_pref("media.navigator.permission.disabled", true);
        user_pref("media.navigator.streams.fake", false);
        user_pref("media.peerconnection.ice.loopback", true);
        user_pref("browser.shell.checkDefaultBrowser", false);
        user_pref("browser.startup.homepage_override.mstone", "ignore");
        user_pref("datareporting.policy.dataSubmissionEnabled", false);
        user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
        user_pref("app.update.disabledForTesting", true);
        user_pref("browser.safebrowsing.update.enabled", false);
        user_pref("network.captive-portal-service.enabled", false);
        user_pref("network.connectivity-service.enabled", false);
        user_pref("extensions.update.enabled", false);
        user_pref("devtools.console.stdout.content", true);

        """

    // MARK: - Its audio

    /// The browser and every process it started (Chromium's audio service is a child process;
    /// Firefox's audio is the main one): whose streams are the browser's.
    var family: [Int32] { [process.pid] + Self.descendants(of: process.pid) }

    /// Its stream nodes: those whose `application.process.id` is one of its ``family``.
    func streams(in dump: PipeWireDump) -> [PipeWireDump.Object] {
        let family = Set(family.map(String.init))
        return dump.nodes.filter { node in
            (node.mediaClass ?? "").hasPrefix("Stream/")
                && node.property("application.process.id").map(family.contains) == true
        }
    }

    private func graph() throws -> PrivatePipeWire {
        guard let pipeWire else { throw SandboxError.commandFailed("a browser on PulseAudio has no PipeWire graph to read") }
        return pipeWire
    }

    /// Its playback and capture streams, counted.
    struct Streams: Equatable, CustomStringConvertible {
        var outputs = 0
        var inputs = 0
        var description: String { "\(outputs) playback, \(inputs) capture" }
    }

    func streamCounts() throws -> Streams {
        streams(in: try graph().dump()).reduce(into: Streams()) { counts, node in
            if node.mediaClass == "Stream/Output/Audio" { counts.outputs += 1 }
            if node.mediaClass == "Stream/Input/Audio" { counts.inputs += 1 }
        }
    }

    /// The devices its playback (`Stream/Output/Audio`) or capture (`Stream/Input/Audio`)
    /// streams are linked to, by `node.name`. By node id: Firefox names both its streams
    /// "Firefox", so ``PrivatePipeWire/linkedDevices(of:)`` cannot tell them apart.
    func linkedDevices(mediaClass: String) throws -> Set<String> {
        let dump = try graph().dump()
        let ids = Set(streams(in: dump).filter { $0.mediaClass == mediaClass }.map(\.id))
        let names = Dictionary(dump.nodes.map { ($0.id, $0.name ?? "\($0.id)") }) { first, _ in first }
        return Set(dump.nodeLinks.compactMap { link -> String? in
            if ids.contains(link.output) { return names[link.input] }
            if ids.contains(link.input) { return names[link.output] }
            return nil
        })
    }

    /// Waits until its streams satisfy `condition` (start-up takes 1.5–4 s on 2 cores); on a
    /// timeout, says what it has and what the page said.
    func waitForStreams(timeout: Duration = .seconds(30), _ condition: (Streams) -> Bool) throws {
        do {
            try waitUntil(timeout: timeout, poll: .milliseconds(100), "\(kind.rawValue)'s streams are right") {
                guard process.isRunning else {
                    throw SandboxError.notRunning("\(kind.rawValue) exited: \(process.errorOutput.suffix(2000))")
                }
                return condition(try streamCounts())
            }
        } catch SandboxError.timeout(let message) {
            let now = (try? streamCounts())?.description ?? "?"
            throw SandboxError.timeout("\(message) (now: \(now); page: \(pageLog.joined(separator: " | ")))")
        }
    }

    /// What the page said (its console.log lines starting "fixture: ").
    var pageLog: [String] {
        process.errorOutput.split(separator: "\n").compactMap { line in
            line.range(of: "fixture: ").map { String(line[$0.upperBound...].prefix { $0 != "\"" }) }
        }
    }

    // MARK: - Signals to the page

    /// Ends the call: the page stops its microphone and closes both connections.
    func hangUp() throws { try signal("hangup.js") }

    /// Pauses the music.
    func pause() throws { try signal("stop.js") }

    /// The page polls for this file every 200 ms (fixtures' signal.js).
    private func signal(_ name: String) throws {
        try "// signal\n".write(to: page.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    // MARK: - Stopping

    /// Kills the browser and every process it started (by PID: its process group, then any
    /// descendant that left it), and removes its directory. Idempotent.
    func stop() {
        let family = Self.descendants(of: process.pid)
        process.terminate(grace: .seconds(5))
        for pid in family where kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every live descendant of `pid`, from /proc.
    static func descendants(of pid: Int32) -> [Int32] {
        var children: [Int32: [Int32]] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { children[parent, default: []].append(child) }
        }
        var result: [Int32] = []
        var queue = children[pid] ?? []
        while let next = queue.popLast() {
            result.append(next)
            queue += children[next] ?? []
        }
        return result
    }
}
