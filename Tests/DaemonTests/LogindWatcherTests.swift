import AudioSessionControl
import Foundation
import PipeWireSandbox
import SessionBus
import Synchronization
import Testing

@testable import AudioSessionDaemon

/// logind is not on this machine: the simulated login1 `audiosessionctl simulate` serves stands
/// in for it on a private bus (the daemon code under test is real).
typealias FakeLogin1 = SimulatedLogin

@Suite("logind: screen lock and sleep", .serialized)
struct LogindWatcherTests {
    final class Events: Sendable {
        let list = Mutex<[LoginEvent]>([])
        var all: [LoginEvent] { list.withLock { $0 } }
        func waitFor(_ expected: [LoginEvent]) async throws {
            try await eventually(timeout: .seconds(5), "events are \(expected) (now \(all))") { all == expected }
        }
    }

    @Test func lockUnlockSleepAndWakeReachTheDaemon() async throws {
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let login = try await FakeLogin1(busAddress: bus.address)
        defer { login.close() }
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        let watcher = LogindWatcher(bus: connection, logger: .init(label: "test"))
        let events = Events()
        let path = try await watcher.start(sessionID: nil, processID: 4242) { event in
            events.list.withLock { $0.append(event) }
        }
        #expect(path == FakeLogin1.sessionPath)
        #expect(login.calls == ["GetSessionByPID(4242)"], "without XDG_SESSION_ID the session is found by our pid")
        try await events.waitFor([.screenLocked(false)])  // the state at start

        try login.lock(true)
        try await events.waitFor([.screenLocked(false), .screenLocked(true)])
        try login.lock(false)
        try login.prepareForSleep(true)
        try login.prepareForSleep(false)
        // Lock changes and sleep signals arrive on two subscriptions, each in order but not
        // ordered with each other.
        try await eventually(timeout: .seconds(10), "lock then sleep events (now \(events.all))") {
            let all = events.all
            return all.filter { if case .screenLocked = $0 { true } else { false } }
                == [.screenLocked(false), .screenLocked(true), .screenLocked(false)]
                && all.filter { $0 == .sleep || $0 == .wake } == [.sleep, .wake] && all.count == 5
        }
    }

    @Test func theSessionIsFoundByXDGSessionIDWhenSet() async throws {
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let login = try await FakeLogin1(busAddress: bus.address)
        defer { login.close() }
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        let watcher = LogindWatcher(bus: connection, logger: .init(label: "test"))
        let path = try await watcher.start(sessionID: "c7", processID: 1) { _ in }
        #expect(path == FakeLogin1.sessionPath)
        #expect(login.calls == ["GetSession(\"c7\")"])
        await #expect(throws: BusError.self) {
            try await LogindWatcher(bus: connection, logger: .init(label: "test")).start(sessionID: "nope", processID: 1) { _ in }
        }
    }

    @Test func otherServiceAndObjectNamesAreParameters() async throws {
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        // A login1 under another name: a watcher pointed at the standard name finds nothing.
        let login = try await FakeLogin1(busAddress: bus.address, serviceName: "org.example.login1")
        defer { login.close() }
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        await #expect(throws: BusError.self) {
            try await LogindWatcher(bus: connection, logger: .init(label: "test")).start(sessionID: nil, processID: 1) { _ in }
        }
        var names = LogindNames.standard
        names.service = "org.example.login1"
        let events = Events()
        try await LogindWatcher(bus: connection, names: names, logger: .init(label: "test")).start(
            sessionID: nil, processID: 1
        ) { event in events.list.withLock { $0.append(event) } }
        try login.lock(true)
        try await events.waitFor([.screenLocked(false), .screenLocked(true)])
    }

    /// The real daemon, with the fake login1 as its system bus: a lock silences an ambient
    /// (Game) stream, an unlock restores it; sleep and wake reach the engine.
    @Test func theDaemonSilencesAmbientAudioWhileTheScreenIsLocked() async throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let login = try await FakeLogin1(busAddress: bus.address)
        defer { login.close() }
        let daemon = try DaemonProcess(
            in: sandbox, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c7"])
        let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
        /// Waits until the daemon's `status --json` says `key` is `value`.
        func waitForStatus(_ key: String, _ value: Bool) async throws {
            try await eventually(timeout: .seconds(10), "the daemon's status says \(key) \(value); log:\n\(daemon.log)") {
                (try? oracle.status()[key] as? Bool) == value
            }
        }
        let watcher = try VolumeWatcher(sandbox)
        _ = try sandbox.play(role: "Game", file: try sandbox.testTone(), extraArguments: ["-P", "{ node.name = game }"])
        try await eventually(timeout: .seconds(5), "the game stream is linked") {
            try sandbox.linkedDevices(of: "game") == ["headphones"]
        }

        // Locked before or after the daemon subscribed: it reads the lock state once subscribed.
        try login.lock(true)
        try await waitForStatus("screenLocked", true)
        try await eventually(timeout: .seconds(5), "the game is silenced") { watcher.volume(of: "game") == 0 }
        try login.lock(false)
        try await waitForStatus("screenLocked", false)
        try await eventually(timeout: .seconds(5), "the game is back") { watcher.volume(of: "game") == 1 }

        // The sleep signal was subscribed to before the session's lock was read.
        try login.prepareForSleep(true)
        try await waitForStatus("asleep", true)
        try login.prepareForSleep(false)
        try await waitForStatus("asleep", false)
    }
}

/// `cannotInterruptOthers` for real: with the strict profile (a non-mixable activation
/// interrupts), a podcast app cannot cut off the music while the screen is locked, and can once
/// it is unlocked.
@Suite("Activation while the screen is locked", .serialized)
struct LockedActivationTests {
    @Test func aPlayerCannotCutOffTheMusicWhileTheScreenIsLocked() async throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let login = try await FakeLogin1(busAddress: bus.address)
        defer { login.close() }
        // The daemon's user config is the sandbox's `config` directory.
        let rules = sandbox.directory.appendingPathComponent("config/audiosession/policy-rules.d")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try "audiosession.settings = { profile = strict }\n".write(
            to: rules.appendingPathComponent("50-strict.conf"), atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            in: sandbox,
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c7"])
        let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
        try await eventually(timeout: .seconds(10), "the daemon serves its API; log:\n\(daemon.log)") { (try? oracle.status()) != nil }
        _ = try sandbox.play(role: "Music", file: try sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try await eventually(timeout: .seconds(5), "the music plays") { try sandbox.linkedDevices(of: "music") == ["headphones"] }

        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        let service = "org.audiosession.Manager1"
        let created = try await connection.call(
            service, path: "/org/audiosession/Manager1", interface: service, member: "CreateSession", [.string("podcasts")],
            timeout: .seconds(5))
        let path = try #require(created.first?.stringValue)
        func session(_ member: String, _ arguments: [BusValue]) async throws {
            _ = try await connection.call(service, path: path, interface: "org.audiosession.Session1", member: member, arguments, timeout: .seconds(5))
        }
        try await session("SetCategory", [.string("playback"), .string("default"), .uint32(0)])

        try login.lock(true)
        try await eventually(timeout: .seconds(10), "the daemon saw the lock") { (try? oracle.status()["screenLocked"] as? Bool) == true }
        var refusal: BusError?
        do { try await session("SetActive", [.bool(true), .uint32(0)]) } catch let error as BusError { refusal = error }
        #expect(refusal?.name == "org.audiosession.Error.CannotInterruptOthers", "\(String(describing: refusal))")
        #expect(try sandbox.linkedDevices(of: "music") == ["headphones"], "the music plays on")

        try login.lock(false)
        try await eventually(timeout: .seconds(10), "the daemon saw the unlock") { (try? oracle.status()["screenLocked"] as? Bool) == false }
        try await session("SetActive", [.bool(true), .uint32(0)])
        try await eventually(timeout: .seconds(5), "the music is interrupted (strict)") { try sandbox.linkedDevices(of: "music").isEmpty }
    }
}

/// `waitUntil` that suspends between polls instead of blocking a thread of the test's task
/// pool (the bus signal tasks of the code under test run there). The description is read when
/// time runs out, so it shows what the condition last saw.
private func eventually(
    timeout: Duration, _ description: @autoclosure () -> String, _ condition: () throws -> Bool
) async throws {
    try await waitUntil(timeout: timeout, description()) { () async throws -> Bool in try condition() }
}
