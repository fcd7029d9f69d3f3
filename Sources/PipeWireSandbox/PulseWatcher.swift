import Dispatch
import Foundation
import Logging
import PulseAudioServer

/// A libpulse client of a private PulseAudio that sees what every other client sees: its
/// streams (device, volume, mute, corked), modules and the stream-restore database. The
/// independent observer of the PulseAudio tests and of the demo's PulseAudio act.
public final class PulseWatcher: @unchecked Sendable {
    private let connection: PulseConnection
    private let state = WatchedState()

    public init(_ sandbox: PrivatePulseAudio) throws {
        if let problem = PulseLibrary.load() { throw SandboxError.missingInstallation("the PulseAudio watcher needs libpulse: \(problem)") }
        var logger = Logger(label: "pulse-watcher")
        logger.logLevel = .error  // an observer: quiet unless something is wrong
        connection = PulseConnection(
            configuration: .init(server: "unix:\(sandbox.socketPath)", applicationName: "pulse-watcher"), logger: logger)
        connection.setObserver { [state] event, snapshot in
            let now = ContinuousClock.now
            state.lock.withLock {
                switch event {
                case .streamAdded(let stream):
                    state.moves.append(.init(at: now, stream: stream.index, sink: snapshot.sinks[stream.device]?.name))
                case .streamChanged(let stream, let previous) where stream.device != previous.device:
                    state.moves.append(.init(at: now, stream: stream.index, sink: snapshot.sinks[stream.device]?.name))
                case .deviceRemoved(let device):
                    state.removals.append((now, device.name))
                default:
                    break
                }
                state.snapshot = snapshot
                if case .synced = event { state.synced = true }
                if case .disconnected = event { state.synced = false }
            }
        }
        connection.start()
        try waitUntil(timeout: .seconds(10), "the watcher sees the server") { isSynced }
    }

    deinit { connection.stop() }

    public var snapshot: PulseSnapshot { state.lock.withLock { state.snapshot } }

    /// A sink input seen on a sink (when it appeared or moved), in the order seen.
    public struct Move: Sendable {
        public let at: ContinuousClock.Instant
        public let stream: UInt32
        public let sink: String?
    }

    /// Every sink input's sinks, as seen.
    public var moves: [Move] { state.lock.withLock { state.moves } }

    /// When a sink or source of this name was seen going away.
    public func removal(of name: String) -> ContinuousClock.Instant? {
        state.lock.withLock { state.removals.last { $0.1 == name }?.0 }
    }
    public var isSynced: Bool { state.lock.withLock { state.synced } }

    /// The sink input whose `media.role` (or `application.name`) is `name`.
    public func sinkInput(_ name: String) -> PulseStream? {
        snapshot.sinkInputs.values.first { $0.properties["media.role"] == name || $0.properties["application.name"] == name }
    }

    /// The name of the sink the stream plays to now.
    public func sinkName(of name: String) -> String? {
        let snapshot = self.snapshot
        return sinkInput(name).flatMap { snapshot.sinks[$0.device]?.name }
    }

    public func waitForSink(of name: String, _ sink: String, timeout: Duration = .seconds(5)) throws {
        try waitUntil(timeout: timeout, "\(name) plays to \(sink) (now \(sinkName(of: name) ?? "none"))") { sinkName(of: name) == sink }
    }

    public func waitForStream(_ name: String, timeout: Duration = .seconds(5)) throws {
        try waitUntil(timeout: timeout, "a stream \(name) appears") { sinkInput(name) != nil }
    }

    /// The stream's loudest channel volume (`pa_volume_t`, 65536 = 100 %).
    public func volume(of name: String) -> UInt32? { sinkInput(name)?.channelVolumes.max() }

    public func waitForVolume(of name: String, timeout: Duration = .seconds(5), _ condition: (UInt32) -> Bool) throws {
        try waitUntil(timeout: timeout, "the volume of \(name) (now \(volume(of: name).map(String.init) ?? "none"))") {
            volume(of: name).map(condition) ?? false
        }
    }

    /// The stream-restore database as the server has it now.
    public func streamRestore() throws -> [String: StreamRestoreEntry] {
        let result = RestoreRead()
        let done = DispatchSemaphore(value: 0)
        connection.perform { [connection] in
            connection.readStreamRestore { entries in
                result.lock.withLock { result.entries = entries }
                done.signal()
            }
        }
        guard done.wait(timeout: .now() + TestTime.scaledInterval(.seconds(5))) == .success, let entries = result.lock.withLock({ result.entries }) else {
            throw SandboxError.timeout("the stream-restore database could not be read")
        }
        return entries
    }
}

private final class WatchedState: @unchecked Sendable {
    let lock = NSLock()
    var snapshot = PulseSnapshot()
    var synced = false
    var moves: [PulseWatcher.Move] = []
    var removals: [(ContinuousClock.Instant, String)] = []
}

private final class RestoreRead: @unchecked Sendable {
    let lock = NSLock()
    var entries: [String: StreamRestoreEntry]?
}
