import AudioSession
import Foundation
import PipeWireSandbox
import SessionBus
import Testing

/// The `AudioSession` library against the real daemon: AVAudioSession's calls, thrown codes,
/// properties and notifications.
@Suite("AudioSession library", .serialized)
struct LibraryTests {
    @Test func configuresActivatesAndReadsBack() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let session = AudioSession(address: sandbox.bus.address, app: "library-test")
        try await session.setCategory(.playAndRecord, mode: .voiceChat, options: [.defaultToSpeaker])
        #expect(try await session.category == .playAndRecord)
        #expect(try await session.mode == .voiceChat)
        #expect(try await session.categoryOptions == [.defaultToSpeaker])
        try await session.setPreferredSampleRate(48_000)
        try await session.setPreferredIOBufferDuration(0.005)
        try await session.setActive(true)
        #expect(try await session.isActive)
        #expect(try await session.preferredSampleRate == 48_000)
        #expect(try await session.preferredIOBufferDuration == 0.005)
        try await waitUntil(timeout: .seconds(5), "the buffer is 256 frames at 48 kHz") { () async throws -> Bool in
            try await session.ioBufferDuration == 256.0 / 48_000
        }
        #expect(try await session.sampleRate == 48_000)
        #expect(try await session.outputLatency == 256.0 / 48_000)
        #expect(try await session.outputNumberOfChannels == 2)
        #expect(try await session.currentRoute.outputs.map(\.uid) == ["headphones"])
        let inputs = try await session.availableInputs
        #expect(inputs.map(\.uid) == ["mic"])
        try await session.setPreferredInput(inputs.first)
        #expect(try await session.preferredInput?.uid == "mic")
        try await session.setPreferredInput(nil)
        // The virtual mic has a volume control and no card routes (the test card's are in DaemonTests).
        #expect(try await session.isInputGainSettable)
        #expect(try await session.inputGain == 1)
        try await session.setInputGain(0.5)
        await #expect(throws: AudioSessionFailure.self) { try await session.setInputGain(1.5) }
        #expect(try await session.inputDataSources.isEmpty)
        #expect(try await session.inputDataSource == nil)
        try await session.setInputDataSource(nil)
        await #expect(throws: AudioSessionFailure.self) {
            try await session.setInputDataSource(DataSourceDescription(dataSourceID: 2, dataSourceName: "Internal Microphone"))
        }
        try await session.overrideOutputAudioPort(.speaker)
        #expect(try await session.isOtherAudioPlaying == false)
        #expect(try await session.secondaryAudioShouldBeSilencedHint == false)
        #expect(try await session.recordPermission == .undetermined)
        #expect(try sandbox.ctl(["permission", "grant", ownAppID]).status == 0)  // its process, not its name
        #expect(try await session.requestRecordPermission())
        #expect(try await session.recordPermission == .granted)
        let environment = try await session.streamEnvironment()
        #expect(environment["PIPEWIRE_PROPS"] == "{ audiosession.id = \(try await session.sessionID) }")
        try await session.setActive(false, options: .notifyOthersOnDeactivation)
        await session.close()
    }

    @Test func concurrentFirstCallsShareOneSession() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let session = AudioSession(address: sandbox.bus.address, app: "eager")
        async let first = session.sessionID
        async let second = session.sessionID
        async let third: Void = session.setCategory(.playback)
        let ids = try await [first, second]
        try await third
        #expect(ids[0] == ids[1])
        let client = try sandbox.connect()
        #expect(try await listSessions(client).filter { $0["label"] == .string("eager") }.count == 1)
        await session.close()
    }

    @Test func refusalsAreThrownWithTheirCodes() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let session = AudioSession(address: sandbox.bus.address)
        await #expect(throws: AudioSessionFailure.self) { try await session.setCategory(.record, options: [.defaultToSpeaker]) }
        do {
            try await session.setPreferredIOBufferDuration(-1)
            Issue.record("a negative duration was accepted")
        } catch let failure as AudioSessionFailure {
            #expect(failure.code == .badParam)
            #expect(failure.code.code == -50)
            #expect(failure.name == "org.audiosession.Error.BadParam")
        }
        do {
            try await session.overrideOutputAudioPort(.speaker)  // soloAmbient: playAndRecord only
            Issue.record("an override outside playAndRecord was accepted")
        } catch let failure as AudioSessionFailure {
            #expect(failure.code == .incompatibleCategory)
        }
        #expect(try await session.category == .soloAmbient, "refusals change nothing")
        await session.close()
    }

    @Test func aMissingDaemonIsMediaServicesFailed() async throws {
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let session = AudioSession(address: bus.address)
        do {
            try await session.setActive(true)
            Issue.record("no daemon, yet activation succeeded")
        } catch let failure as AudioSessionFailure {
            #expect(failure.code == .mediaServicesFailed)
            #expect(failure.message.contains("audiosessiond is not running"))
        }
    }

    @Test func routeChangesAndSecondaryAudioHintsArriveAsStreams() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let client = try sandbox.connect()
        let managerSignals = SignalRecorder(try await client.signals(path: ServiceSandbox.manager, member: "RouteChange"))
        let session = AudioSession(address: sandbox.bus.address, app: "game")
        var routeChanges = session.routeChanges.makeAsyncIterator()
        var hints = session.silenceSecondaryAudioHints.makeAsyncIterator()
        try await session.setCategory(.ambient)
        try await session.setActive(true)

        // Another app's non-mixable playback: the game should silence its soundtrack.
        let tone = try sandbox.pipewire.testTone()
        let player = try sandbox.spawnCtl(["run", "--category", "playback", "--", "pw-cat", "-p", "-P", "{ node.name = other }", tone.path])
        #expect(await hints.next() == .begin)
        #expect(try await session.secondaryAudioShouldBeSilencedHint)
        #expect(try await session.isOtherAudioPlaying)
        player.terminate()
        #expect(await hints.next() == .end)

        // A new output device: last in wins.
        try sandbox.pipewire.createNullSink(named: "usbheadset", description: "USB headset")
        let change = await routeChanges.next()
        #expect(change?.reason == .newDeviceAvailable, "\(String(describing: change))")
        #expect(change?.previousRoute.outputs.map(\.uid) == ["headphones"])
        #expect(try await session.currentRoute.outputs.map(\.uid) == ["usbheadset"])
        let systemChange = try await managerSignals.waitFor("the manager's RouteChange") { _ in true }
        #expect(systemChange.arguments.first == .uint32(1), "newDeviceAvailable")
        await session.close()
    }

    @Test func aPipeWireRestartIsMediaServicesLostThenReset() async throws {
        let sandbox = try ServiceSandbox()
        defer { sandbox.stop() }
        let client = try sandbox.connect()
        let managerSignals = SignalRecorder(try await client.signals(path: ServiceSandbox.manager, interface: ServiceSandbox.managerInterface))
        let session = AudioSession(address: sandbox.bus.address, app: "survivor")
        var lost = session.mediaServicesWereLost.makeAsyncIterator()
        var reset = session.mediaServicesWereReset.makeAsyncIterator()
        try await session.setCategory(.playback)
        try sandbox.pipewire.restart()
        #expect(await lost.next() != nil)
        #expect(await reset.next() != nil)
        _ = try await managerSignals.waitFor("MediaServicesReset") { $0.member == "MediaServicesReset" }
        let order = managerSignals.signals.map(\.member).filter { $0.hasPrefix("MediaServices") }
        #expect(order == ["MediaServicesLost", "MediaServicesReset"])
        try await session.setActive(true)  // clients reactivate after a reset
        #expect(try await session.isActive)
        #expect(try await session.category == .playback, "the session survived")
        await session.close()
    }

    @Test func withoutASessionBusTheDaemonSaysSoOnceAndRuns() throws {
        let pipewire = try PrivatePipeWire()
        defer { pipewire.stop() }
        let state = pipewire.directory.appendingPathComponent("state").path
        let readiness = try ReadinessSocket(in: pipewire.directory)
        let daemon = try pipewire.spawn(ServiceSandbox.binary("audiosessiond"), ["--state-dir", state], extraEnvironment: readiness.environment)
        // No bus is no reason to wait: it is ready once attached, and says why it serves nothing.
        try readiness.waitUntilReady(of: daemon)
        try waitUntil(timeout: .seconds(5), "the daemon says why it serves nothing; log:\n\(daemon.errorOutput)") {
            daemon.errorOutput.contains("running without the D-Bus API")
        }
        #expect(daemon.errorOutput.components(separatedBy: "running without the D-Bus API").count == 2, "one line")
        kill(daemon.pid, SIGTERM)
        #expect(try daemon.waitForExit(timeout: .seconds(5)) == 0)
    }

    @Test func noBusLeavesTheSessionBusAlone() throws {
        let pipewire = try PrivatePipeWire()
        defer { pipewire.stop() }
        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let state = pipewire.directory.appendingPathComponent("state").path
        let readiness = try ReadinessSocket(in: pipewire.directory)
        let daemon = try pipewire.spawn(
            ServiceSandbox.binary("audiosessiond"), ["--state-dir", state, "--no-bus"],
            extraEnvironment: bus.environment.merging(readiness.environment) { $1 })
        try readiness.waitUntilReady(of: daemon)
        let status = try pipewire.spawn(ServiceSandbox.binary("audiosessionctl"), ["status"], extraEnvironment: bus.environment)
        #expect(try status.waitForExit(timeout: .seconds(10)) == 1)
        #expect(status.errorOutput.contains("audiosessiond is not running"))
        kill(daemon.pid, SIGTERM)
        #expect(try daemon.waitForExit(timeout: .seconds(5)) == 0)
    }
}
