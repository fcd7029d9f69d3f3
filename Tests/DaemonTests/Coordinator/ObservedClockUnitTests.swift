import PipeWireGraph
import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// Which sampled cycle tells what the default output runs at, how long a sample may take, and
/// what the coordinator tells the engine.
@Suite("Observed clock: the driver that counts, and the engine's fallback")
struct ObservedClockUnitTests {
    static func cycle(_ driver: GlobalID, quantum: Int, followers: [GlobalID] = [], fresh: Bool = true) -> DriverCycle {
        DriverCycle(
            driver: driver, driverName: "driver\(driver)", sampleRate: 48_000, quantum: quantum, followers: followers,
            isFresh: fresh)
    }

    @Test func theDriverOfTheDefaultOutputCountsWhetherItIsTheOutputOrDrivesIt() {
        let mic = Self.cycle(40, quantum: 128)
        let speaker = Self.cycle(30, quantum: 256, followers: [50])
        #expect(ClockProbe.cycle(clocking: 30, among: [mic, speaker], waitingForOutput: true) == speaker)
        // The output follows another driver (it joined that driver's graph).
        let grouped = Self.cycle(40, quantum: 512, followers: [30, 50])
        #expect(ClockProbe.cycle(clocking: 30, among: [mic, grouped], waitingForOutput: true) == grouped)
    }

    @Test func whileTheDefaultOutputRunsOnlyItsDriverCounts() {
        let mic = Self.cycle(40, quantum: 128)
        #expect(ClockProbe.cycle(clocking: 30, among: [mic], waitingForOutput: true) == nil, "its cycle is yet to come")
        #expect(ClockProbe.cycle(clocking: 30, among: [mic], waitingForOutput: false) == mic, "it does not run: what runs")
        #expect(ClockProbe.cycle(clocking: nil, among: [mic, Self.cycle(41, quantum: 64)], waitingForOutput: false) == mic)
        #expect(ClockProbe.cycle(clocking: 30, among: [], waitingForOutput: false) == nil, "nothing runs")
    }

    /// A server before 0.3.75 sends its profiles once a second: "nothing runs" needs longer.
    @Test func patienceCoversTheServersWayOfSendingProfiles() {
        #expect(ClockProbe.patience(for: PipeWireVersion(0, 3, 65)) > .seconds(1))
        #expect(ClockProbe.patience(for: PipeWireVersion(1, 4, 2)) < .seconds(1))
        #expect(ClockProbe.patience(for: PipeWireVersion(1, 4, 2)) > .milliseconds(186), "a cycle of 8192 frames at 44.1 kHz")
    }

    @Test func theCoordinatorReportsWhatRunsAndFallsBackToTheChoiceWhenNothingDoes() throws {
        let backend = FakeBackend()
        let coordinator = try PolicyCoordinator.onShippedRules(backend, loop: VirtualLoop())
        coordinator.handle(.attached(streams: [], ports: [], defaultOutput: nil, defaultInput: nil))
        let owner = SessionOwner(uniqueName: ":1.7", pid: 999_999, uid: 0)
        let session = coordinator.createExplicitSession(app: "daw", owner: owner)
        #expect(coordinator.request(.setCategory(session, .playback, mode: .default, options: []), for: session) == nil)
        _ = coordinator.request(.setPreferredHardware(session, HardwareWish(ioBufferDuration: 0.005)), for: session)
        _ = coordinator.request(.setActive(session, true, options: []), for: session)
        #expect(coordinator.engine.hardwareChoice.quantum == 256)

        coordinator.handle(.clockObserved(RunningClock(sampleRate: 44_100, quantum: 512)))
        #expect(coordinator.engine.actualHardware() == HardwareValues(sampleRate: 44_100, ioBufferDuration: 512.0 / 44_100))
        coordinator.handle(.clockObserved(nil))
        #expect(coordinator.engine.observedHardware == nil)
        #expect(coordinator.engine.actualHardware() == HardwareValues(sampleRate: 48_000, ioBufferDuration: 256.0 / 48_000))
    }
}
