import Foundation
import PipeWireSandbox
import SessionBus
import Synchronization
import Testing

/// An explicit session (the D-Bus session API) on a private bus: its preferred input wins
/// until a new microphone appears, its capture stream is linked where its route says, and each
/// change reaches it as a RouteChange signal with the reason code (8, then 1).
@Suite("Routes: preferred input and RouteChange over D-Bus", .serialized)
struct RouteSessionTests {
    static let service = "org.audiosession.Manager1"

    @Test func preferredInputWinsUntilANewMicrophoneAppears() async throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        try sandbox.createSource(named: "usb-mic", properties: ["device.bus": "usb"])
        let daemon = try DaemonProcess(in: sandbox, environment: bus.environment)
        try daemon.waitUntilReady()

        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        let created = try await connection.call(
            Self.service, path: "/org/audiosession/Manager1", interface: "org.audiosession.Manager1",
            member: "CreateSession", [.string("recorder")], timeout: .seconds(5))
        let path = try #require(created.first?.stringValue)
        let number = try #require(path.split(separator: "/").last.map(String.init))
        func session(_ member: String, _ arguments: [BusValue] = []) async throws {
            _ = try await connection.call(
                Self.service, path: path, interface: "org.audiosession.Session1", member: member, arguments, timeout: .seconds(5))
        }
        let reasons = Mutex<[UInt32]>([])
        let previousInputs = Mutex<[[String]]>([])
        let stream = try await connection.signals(path: path, interface: "org.audiosession.Session1", member: "RouteChange")
        let collector = Task {
            for await signal in stream {
                reasons.withLock { $0.append(signal.arguments.first?.uint32Value ?? 0) }
                let inputs = signal.arguments.dropFirst().first?.structureValue?.first?.arrayValue ?? []
                previousInputs.withLock { $0.append(inputs.compactMap { $0.structureValue?.first?.stringValue }) }
            }
        }
        defer { collector.cancel() }
        func currentInputs() async throws -> [String] {
            let route = try await connection.property(
                "CurrentRoute", of: "org.audiosession.Session1", at: path, on: Self.service, timeout: .seconds(5))
            return (route.structureValue?.first?.arrayValue ?? []).compactMap { $0.structureValue?.first?.stringValue }
        }

        try await session("SetCategory", [.string("record"), .string("default"), .uint32(0)])
        try await session("SetActive", [.bool(true), .uint32(0)])
        let recording = sandbox.directory.appendingPathComponent("capture.wav")
        try sandbox.spawn("pw-cat", ["-r", "-P", "{ node.name = recorder audiosession.id = \(number) }", recording.path])
        try sandbox.waitUntilLinked("recorder", to: ["usb-mic"])  // the last microphone in

        try await session("SetPreferredInput", [.string("mic")])
        do {
            try sandbox.waitUntilLinked("recorder", to: ["mic"])
        } catch {
            throw SandboxError.timeout("\(error); links: \((try? sandbox.portLinks()) ?? []); daemon:\n\(daemon.log)")
        }
        try await waitUntil(timeout: .seconds(5), "RouteChange routeConfigurationChange (8); got \(reasons.withLock { $0 })") { () async -> Bool in
            await Task.yield()
            return reasons.withLock { $0.last == 8 }
        }
        #expect(previousInputs.withLock { $0.last } == ["usb-mic"])
        #expect(try await currentInputs() == ["mic"])

        // A headset is plugged in: last in wins, and the preference is reset (reference §6).
        try sandbox.createSource(named: "headset-mic", properties: ["device.form-factor": "headset"])
        try sandbox.waitUntilLinked("recorder", to: ["headset-mic"])
        try await waitUntil(timeout: .seconds(5), "RouteChange newDeviceAvailable (1); got \(reasons.withLock { $0 })") { () async -> Bool in
            await Task.yield()
            return reasons.withLock { $0.last == 1 }
        }
        #expect(previousInputs.withLock { $0.last } == ["mic"])
        #expect(try await currentInputs() == ["headset-mic"])
        let preferred = try await connection.property(
            "PreferredInput", of: "org.audiosession.Session1", at: path, on: Self.service, timeout: .seconds(5))
        #expect(preferred.stringValue == "")
        #expect(try daemon.terminate() == 0)
    }
}

/// Resume from sleep (logind `PrepareForSleep(false)`, from a fake login1 on a private system
/// bus) is a route change with reason wakeFromSleep (6) for a playing session, previous route
/// included.
@Suite("Routes: wake from sleep", .serialized)
struct RouteWakeTests {
    @Test func wakingUpIsARouteChangeForAPlayingSession() async throws {
        let sandbox = try PrivatePipeWire()
        defer { sandbox.stop() }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let login = try await FakeLogin1(busAddress: bus.address)
        defer { login.close() }
        // One private bus is both: the system bus of the fake logind, and the session bus the
        // daemon serves its decisions on.
        let daemon = try DaemonProcess(
            in: sandbox, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c7"].merging(bus.environment) { $1 })
        try daemon.waitUntilReady()
        // The logind watcher is no part of readiness (a desktop may have no logind): what logind
        // saw says it. The daemon subscribes to PrepareForSleep before it asks for its session.
        try await waitUntil(timeout: .seconds(10), "the daemon asked logind for its session (calls \(login.calls)); log:\n\(daemon.log)") { () async -> Bool in
            await Task.yield()
            return login.calls.contains { $0.hasPrefix("GetSession(") }
        }
        let decisions = try BusDecisions(in: sandbox, bus: bus)
        defer { decisions.terminate() }
        let oracle = SessionOracle(sandbox: sandbox, busAddress: bus.address)
        try sandbox.chooseDefaultSink("speaker")
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: ["speaker"])
        let music = try oracle.session(ofNodeNamed: "music").id
        try login.prepareForSleep(true)
        try login.prepareForSleep(false)
        #expect(try decisions.waitForChange("wakeFromSleep") == .init(session: music, reason: "wakeFromSleep", previous: "in[] out[virtual:speaker]"))
        #expect(try oracle.route(of: music) == "in[] out[virtual:speaker]")
        #expect(try sandbox.linkedDevices(of: "music") == ["speaker"])
        #expect(try daemon.terminate() == 0)
    }
}

/// What `audiosessionctl` shows of routes: `status` each session's route with port types,
/// `monitor` each route change with its reason and previous route as it happens.
@Suite("Routes: status and monitor", .serialized)
struct RouteCommandTests {
    @Test func statusShowsPortTypesAndMonitorShowsTheUnplug() async throws {
        let sandbox = try PrivatePipeWire(devices: [VirtualDevice(name: "mic", kind: .source, positions: ["MONO"])])
        defer { sandbox.stop() }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let card = try sandbox.startRouteDevice(name: "card", description: "Built-in Audio")
        try card.plugHeadphones()
        let daemon = try DaemonProcess(in: sandbox, environment: bus.environment)
        try daemon.waitUntilReady()
        try sandbox.play(role: "Music", file: sandbox.testTone(), extraArguments: ["-P", "{ node.name = music }"])
        try sandbox.waitUntilLinked("music", to: [card.sinkName])

        let status = try sandbox.spawn(DaemonProcess.path(of: "audiosessionctl"), ["status"], extraEnvironment: bus.environment)
        #expect(try status.waitForExit(timeout: .seconds(10)) == 0)
        #expect(status.output.contains("out card-output:analog-output-headphones (headphones)"), "\(status.output)")

        let monitor = try sandbox.spawn(DaemonProcess.path(of: "audiosessionctl"), ["monitor"], extraEnvironment: bus.environment)
        try await waitUntil(timeout: .seconds(5), "monitor is subscribed") { () async -> Bool in
            await Task.yield()
            return monitor.output.contains("watching audiosessiond")
        }
        try card.unplugHeadphones()
        // The route change and the pause are one step's decisions, printed one after the other.
        try await waitUntil(timeout: .seconds(5), "monitor prints the route change and the pause; it printed:\n\(monitor.output)") { () async -> Bool in
            await Task.yield()
            return monitor.output.contains("routeChanged") && monitor.output.contains("pauseForRouteLoss")
        }
        let line = try #require(monitor.output.split(separator: "\n").first { $0.contains("routeChanged") })
        print("audiosessionctl monitor: \(line)")
        #expect(line.contains("reason=oldDeviceUnavailable"), "\(line)")
        #expect(line.contains("previousRoute=out card-output:analog-output-headphones (headphones)"), "\(line)")
        #expect(try daemon.terminate() == 0)
    }
}
