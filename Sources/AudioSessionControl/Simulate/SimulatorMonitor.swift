import AppProcesses
import AudioSession
import Foundation
import PipeWireSandbox
import SessionBus
import Synchronization

/// What `simulate` prints as it happens: every decision of the daemon, told from the app's
/// side — the signals its sessions receive (`signal`), what the daemon did to it and to the
/// others (`daemon`) — and the app's own output (`app`), on the demo's timeline.
final class SimulatorMonitor: Sendable {
    struct SessionEntry {
        var app: String
        var kind: String
        var ownerPID: Int32?
    }

    private struct State {
        var sessions: [UInt64: SessionEntry] = [:]
        var lastActivity = ContinuousClock.now
        /// Bytes of each of the app's output files already printed: only what it wrote since is read.
        var printedBytes: [URL: UInt64] = [:]
    }

    private let timeline: DemoTimeline
    private let manager: AudioSessionManager
    private let state = Mutex(State())
    private let app: Mutex<(pid: Int32, name: String)?> = Mutex(nil)
    private let tasks = Mutex<[Task<Void, Never>]>([])

    init(timeline: DemoTimeline, busAddress: String) throws {
        self.timeline = timeline
        manager = try AudioSessionManager(address: busAddress)
    }

    /// Subscribes before returning: nothing that happens after is missed.
    func start() async throws {
        let events = try await manager.events()
        try await manager.ensureRunning()
        let following = Task { [weak self] in
            for await signal in events { await self?.handle(signal) }
        }
        tasks.withLock { $0.append(following) }
    }

    /// The app under test: its sessions are the explicit ones its processes own, and implicit
    /// ones under its name; its output is printed as it comes.
    func follow(_ process: ManagedProcess, name: String) {
        app.withLock { $0 = (process.pid, name) }
        let printing = Task.detached { [weak self] in
            while !Task.isCancelled {
                self?.printOutput(of: process)
                if !process.isRunning {
                    self?.printOutput(of: process)
                    self?.timeline.say(.app, "exited with status \(process.exitStatus ?? -1)")
                    self?.touch()
                    return
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        tasks.withLock { $0.append(printing) }
    }

    /// Waits until nothing has happened for `quiet` since now (the daemon decided, the app
    /// reacted), or `limit` passed.
    func settle(quiet: Duration = .milliseconds(300), limit: Duration = .seconds(3)) async {
        touch()
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let last = state.withLock { $0.lastActivity }
            if ContinuousClock.now - last >= quiet { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    func stop() {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        manager.close()
    }

    private func touch() { state.withLock { $0.lastActivity = .now } }

    private func printOutput(of process: ManagedProcess) {
        for (file, isError) in [(process.outputURL, false), (process.errorURL, true)] {
            let offset = state.withLock { $0.printedBytes[file] ?? 0 }
            guard let handle = try? FileHandle(forReadingFrom: file) else { continue }
            defer { try? handle.close() }
            guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd(),
                let lastNewline = data.lastIndex(of: UInt8(ascii: "\n"))
            else { continue }
            let complete = data[data.startIndex...lastNewline]  // complete lines only
            for line in String(decoding: complete, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                timeline.say(.app, (isError ? "│! " : "│ ") + line)
            }
            state.withLock {
                $0.printedBytes[file] = offset + UInt64(complete.count)
                $0.lastActivity = .now
            }
        }
    }

    // MARK: - Decisions

    private func handle(_ signal: BusSignal) async {
        guard signal.member == "Decision", signal.arguments.count == 3 else { return }
        let session = signal.arguments[0].uint64Value ?? 0
        let kind = signal.arguments[1].stringValue ?? ""
        let details = signal.arguments[2].dictionaryValue ?? [:]
        if session != 0, state.withLock({ $0.sessions[session] == nil }) { await refreshSessions() }
        let entry = state.withLock { $0.sessions[session] }
        let name = session == 0 ? "" : "session \(session) (\(entry?.app ?? "?"))"
        let ofApp = entry.map(isApp) ?? false
        if let text = Self.signalText(kind, details), ofApp {
            timeline.say(.signal, "\(name) ← \(text)")
        } else if let text = Self.actionText(kind, details) {
            timeline.say(.daemon, session == 0 ? text : "\(name): \(text)")
        }
        touch()
    }

    private func refreshSessions() async {
        guard let listing = try? await manager.sessions() else { return }
        var sessions: [UInt64: SessionEntry] = [:]
        for entry in listing {
            guard let id = entry["id"]?.uint64Value else { continue }
            sessions[id] = SessionEntry(
                app: entry["app"]?.stringValue ?? "?", kind: entry["kind"]?.stringValue ?? "?",
                ownerPID: entry["ownerPid"]?.int32Value)
        }
        state.withLock { $0.sessions.merge(sessions) { $1 } }
    }

    private func isApp(_ entry: SessionEntry) -> Bool {
        guard let app = app.withLock({ $0 }) else { return false }
        if let owner = entry.ownerPID { return ProcessAncestry.chain(from: owner).contains(app.pid) }
        return entry.app == app.name
    }

    /// A decision's details as text: a string one as it is, a number with two decimals.
    private static func readers(_ details: [String: BusValue]) -> (string: (String) -> String, number: (String) -> String) {
        ({ details[$0]?.stringValue ?? "" }, { details[$0]?.doubleValue.map { String(format: "%.2f", $0) } ?? "?" })
    }

    /// The Session1 signal (or property change) a decision reaches the app as.
    static func signalText(_ kind: String, _ details: [String: BusValue]) -> String? {
        let (string, number) = readers(details)
        switch kind {
        case "activated": return "active"
        case "deactivated": return "inactive"
        case "interruptionBegan": return "Interruption began, reason \(string("reason")) (held by \(string("method")) if it does not stop)"
        case "interruptionEnded":
            let options = details["options"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return "Interruption ended\(options.isEmpty ? "" : ", " + options.joined(separator: ","))"
        case "routeChanged":
            let previous = details["previousRoute"].map(RouteDescriptionText.from) ?? "?"
            return "RouteChange, reason \(string("reason")); previous route \(previous.isEmpty ? "none" : previous)"
        case "silenceSecondaryAudioHint": return "SilenceSecondaryAudioHint \(string("type"))"
        case "failed": return "error \(string("error"))"
        case "outputVolume": return "OutputVolume \(number("volume"))"
        case "inputGain": return "InputGain \(number("gain"))"
        case "hardwareReported":
            let rate = details["sampleRate"]?.doubleValue ?? 0
            let buffer = (details["ioBufferDuration"]?.doubleValue ?? 0) * 1000
            return String(format: "SampleRate %.0f Hz, IOBufferDuration %.2f ms", rate, buffer)
        default: return nil
        }
    }

    /// What the daemon did, in words.
    static func actionText(_ kind: String, _ details: [String: BusValue]) -> String? {
        let (string, number) = readers(details)
        switch kind {
        case "activated": return "active"
        case "deactivated": return "inactive"
        case "interruptionBegan": return "interrupted (\(string("reason")), by \(string("method")))"
        case "interruptionEnded": return "interruption ended"
        case "gain": return "gain → \(number("gain")) over \(number("rampSeconds")) s"
        case "silenced": return details["silenced"]?.boolValue == true ? "silenced" : "unsilenced"
        case "captureSilenced": return details["silenced"]?.boolValue == true ? "records silence" : "records again"
        case "link": return "routed to \(details["route"].map(RouteDescriptionText.from) ?? "?")"
        case "routeChanged": return "route change (\(string("reason")))"
        case "pauseForRouteLoss": return "paused: its output went away (by \(string("method")))"
        case "hardware":
            let rate = details["sampleRate"]?.int32Value ?? 0, quantum = details["quantum"]?.int32Value ?? 0
            return "forces \(rate == 0 ? "no rate" : "\(rate) Hz"), \(quantum == 0 ? "no quantum" : "quantum \(quantum)")"
        case "mediaServicesLost": return "media services lost (PipeWire is gone)"
        case "mediaServicesReset": return "media services reset (PipeWire is back)"
        case "nowPlaying":
            let id = details["session"]?.uint64Value ?? 0
            return id == 0 ? "no current media player" : "now playing: session \(id) (media keys go to it)"
        case "failed": return "refused: \(string("error"))"
        case "applyInputGain":
            let gain = details["gain"]?.doubleValue ?? -1
            let device = details["device"]?.uint32Value ?? 0
            return gain < 0 ? "input device \(device): its user's volume back" : "input device \(device) at gain \(number("gain"))"
        case "selectDataSource":
            let source = details["dataSource"]?.int32Value ?? -1
            let device = details["device"]?.uint32Value ?? 0
            return source < 0 ? "device \(device): its card's route back" : "device \(device): card route \(source) selected"
        case "silenceSecondaryAudioHint", "outputVolume", "inputGain", "hardwareReported": return nil
        default: return kind
        }
    }
}
