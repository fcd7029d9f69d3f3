import Foundation
import Logging
import PulseAudioServer
import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// Jack detection on PulseAudio, from recorded card data (a private server's null sinks have
/// no ports): an HDA laptop sink with speaker and headphone ports, as `pactl list sinks` shows
/// it, fed to the backend; unplugging the headphones becomes the port events that make the
/// policy pause media (the coordinator's side: PolicyCoordinatorTests).
@Suite("PulseAudio ports from recorded card data")
struct PulseAudioPortTests {
    static let sinkName = "alsa_output.pci-0000_00_1f.3.analog-stereo"

    /// `pactl list sinks` of an HDA Intel PCH (PulseAudio 16): headphones plugged in.
    static func laptopSink(headphones: PulsePort.Availability) -> PulseDevice {
        PulseDevice(
            kind: .sink, index: 1, name: sinkName, description: "Built-in Audio Analog Stereo",
            properties: [
                "alsa.card_name": "HDA Intel PCH", "device.bus": "pci", "device.form_factor": "internal",
                "device.api": "alsa", "device.class": "sound", "device.string": "front:0",
            ],
            ports: [
                PulsePort(name: "analog-output-speaker", description: "Speakers", priority: 10000, availability: .unknown, type: 2),
                PulsePort(name: "analog-output-headphones", description: "Headphones", priority: 9900, availability: headphones, type: 3),
            ],
            activePort: headphones == .no ? "analog-output-speaker" : "analog-output-headphones", state: .running,
            monitorOf: nil, card: 0, ownerModule: 7, sampleRate: 48000, channels: 2, latency: 0, configuredLatency: 0)
    }

    /// A backend on a connection that never connects: driven by recorded events alone.
    static func offlineBackend() -> PulseAudioBackend {
        let connection = PulseConnection(configuration: .init(server: "unix:/nonexistent", applicationName: "test"), logger: Logger(label: "test"))
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("pulse-backend-\(UUID().uuidString.prefix(8))")
        return PulseAudioBackend(connection: connection, loop: VirtualLoop(), stateDirectory: state, logger: Logger(label: "test"))
    }

    private func backend() -> (PulseAudioBackend, Box) {
        let backend = Self.offlineBackend()
        let box = Box()
        backend.onEvent.wire { box.events.append($0) }
        return (backend, box)
    }

    final class Box: @unchecked Sendable {
        var events: [BackendEvent] = []
    }

    private func snapshot(_ sink: PulseDevice) -> PulseSnapshot {
        var snapshot = PulseSnapshot()
        snapshot.server.serverName = "pulseaudio"
        snapshot.server.defaultSinkName = Self.sinkName
        snapshot.sinks[sink.index] = sink
        return snapshot
    }

    @Test func theSinksPortsAreTypedFromPulseAudiosPortTypes() throws {
        let offers = PulsePorts.offers(for: Self.laptopSink(headphones: .yes), rule: nil)
        #expect(offers.map(\.port.uid) == ["\(Self.sinkName):analog-output-speaker", "\(Self.sinkName):analog-output-headphones"])
        #expect(offers.map(\.port.type) == [.builtInSpeaker, .headphones])
        #expect(offers.map(\.port.name) == ["Speakers", "Headphones"])
        #expect(offers.allSatisfy { $0.available })
    }

    /// Data sources: the device's available ports, numbered by their place in its list; the
    /// active one selected.
    @Test func theDevicesPortsAreItsDataSources() throws {
        let plugged = try #require(PulsePorts.dataSources(of: Self.laptopSink(headphones: .yes)))
        #expect(plugged.sources == [DataSource(id: 0, name: "Speakers"), DataSource(id: 1, name: "Headphones")])
        #expect(plugged.selected == 1)
        let unplugged = try #require(PulsePorts.dataSources(of: Self.laptopSink(headphones: .no)))
        #expect(unplugged.sources == [DataSource(id: 0, name: "Speakers")], "an unplugged jack cannot be chosen")
        #expect(unplugged.selected == 0)
    }

    @Test func unpluggingTheHeadphonesIsAnAvailabilityChangeAndAMovedDefault() throws {
        let (backend, box) = backend()
        let plugged = Self.laptopSink(headphones: .yes)
        backend.handle(.synced, in: snapshot(plugged))
        guard case .attached(_, let ports, let defaultOutput, _) = box.events.first else {
            Issue.record("no attached event: \(box.events)")
            return
        }
        #expect(ports.map(\.type) == [.builtInSpeaker, .headphones])
        #expect(defaultOutput == "\(Self.sinkName):analog-output-headphones", "the default is the port that plays now")
        box.events.removeAll()

        let unplugged = Self.laptopSink(headphones: .no)
        backend.handle(.deviceChanged(unplugged, previous: plugged), in: snapshot(unplugged))
        let headphones = "\(Self.sinkName):analog-output-headphones"
        let speaker = "\(Self.sinkName):analog-output-speaker"
        guard case .dataSourcesChanged(_, let sources) = box.events.last else {
            Issue.record("no data sources change: \(box.events)")
            return
        }
        #expect(sources?.sources.map(\.id) == [0], "the jack cannot be chosen any more")
        box.events.removeLast()
        #expect(box.events.count == 2, "\(box.events)")
        if case .portAvailabilityChanged(let uid, let available) = box.events.first {
            #expect(uid == headphones && !available)
        } else {
            Issue.record("the first event is not the headphones going away: \(box.events)")
        }
        if case .defaultChanged(.output, let uid) = box.events.last {
            #expect(uid == speaker)
        } else {
            Issue.record("the default did not move to the speaker: \(box.events)")
        }

        box.events.removeAll()
        backend.handle(.deviceChanged(plugged, previous: unplugged), in: snapshot(plugged))
        if case .portAvailabilityChanged(let uid, let available) = box.events.first {
            #expect(uid == headphones && available, "plugged in again")
        } else {
            Issue.record("no availability change when plugged in again: \(box.events)")
        }
    }
}

/// The whole chain on recorded card data: the PulseAudio backend and the real coordinator
/// (shipped rules, a virtual loop). Music plays on the headphones; they are unplugged; the
/// policy pauses the music (the backend holds it) and a notification's later arrival changes
/// nothing about that.
@Suite("PulseAudio: unplugging the headphones pauses the music")
struct PulseAudioUnplugTests {
    @Test func unpluggingTheHeadphonesHoldsTheMusic() throws {
        let backend = PulseAudioPortTests.offlineBackend()
        let loop = VirtualLoop()
        let coordinator = try PolicyCoordinator.onShippedRules(backend, loop: loop)
        backend.onEvent.wire { coordinator.handle($0) }

        let plugged = PulseAudioPortTests.laptopSink(headphones: .yes)
        var snapshot = PulseSnapshot()
        snapshot.server.serverName = "pulseaudio"
        snapshot.server.defaultSinkName = PulseAudioPortTests.sinkName
        snapshot.sinks[plugged.index] = plugged
        let music = PulseStream(
            kind: .sinkInput, index: 5, name: "playback", device: plugged.index, client: 3,
            properties: ["media.role": "music", "application.name": "Rhythmbox", "module-stream-restore.id": "sink-input-by-media-role:music"],
            corked: false, muted: false, channelVolumes: [65536, 65536], volumeWritable: true, sampleRate: 44100, bufferLatency: 0)
        snapshot.sinkInputs[music.index] = music
        backend.handle(.synced, in: snapshot)
        #expect(!backend.isHeld(.playback(5)))

        let unplugged = PulseAudioPortTests.laptopSink(headphones: .no)
        snapshot.sinks[unplugged.index] = unplugged
        backend.handle(.deviceChanged(unplugged, previous: plugged), in: snapshot)
        #expect(backend.isHeld(.playback(5)), "paused on unplug")

        // Plugged in again: it stays paused until its user plays it (AVAudioSession: no resume).
        snapshot.sinks[plugged.index] = plugged
        backend.handle(.deviceChanged(plugged, previous: unplugged), in: snapshot)
        #expect(backend.isHeld(.playback(5)), "not resumed by plugging in")
        // Its user pauses and plays it (a pulse client corks and uncorks): it plays.
        var corked = music
        corked.corked = true
        snapshot.sinkInputs[5] = corked
        backend.handle(.streamChanged(corked, previous: music), in: snapshot)
        snapshot.sinkInputs[5] = music
        backend.handle(.streamChanged(music, previous: corked), in: snapshot)
        #expect(!backend.isHeld(.playback(5)), "released when its user plays it")
    }
}

/// Hardware values on PulseAudio: no client can set the rate or the latency, so a session's
/// preference is answered with what the default sink actually runs at.
@Suite("PulseAudio: hardware values are the server's")
struct PulseAudioHardwareTests {
    @Test func aPreferredBufferIsAnsweredWithTheSinksActualLatency() throws {
        let backend = PulseAudioPortTests.offlineBackend()
        let coordinator = try PolicyCoordinator.onShippedRules(backend, loop: VirtualLoop())
        let box = PulseAudioPortTests.Box()
        backend.onEvent.wire {
            box.events.append($0)
            coordinator.handle($0)
        }
        var sink = PulseAudioPortTests.laptopSink(headphones: .yes)
        sink.sampleRate = 44100
        sink.configuredLatency = 20_000  // 20 ms: 882 frames
        var snapshot = PulseSnapshot()
        snapshot.server.defaultSinkName = sink.name
        snapshot.sinks[sink.index] = sink
        backend.handle(.synced, in: snapshot)
        #expect(box.events.contains {
            if case .hardware(let hardware) = $0 { return hardware.sampleRate == 44100 && hardware.quantum == 882 }
            return false
        }, "\(box.events)")
        #expect(box.events.contains { $0.observedClock == RunningClock(sampleRate: 44100, quantum: 882) }, "also what its clock runs at")
        #expect(coordinator.engine.observedHardware?.quantum == 882)

        let owner = SessionOwner(uniqueName: ":1.7", pid: 999_999, uid: 0)
        let session = coordinator.createExplicitSession(app: "daw", owner: owner)
        #expect(coordinator.request(.setCategory(session, .playback, mode: .default, options: []), for: session) == nil)
        _ = coordinator.request(
            .setPreferredHardware(session, HardwareWish(sampleRate: 48000, ioBufferDuration: 0.005)), for: session)
        let actual = coordinator.engine.actualHardware()
        #expect(actual.sampleRate == 44100, "the sink's rate, not the preferred 48 kHz")
        #expect(abs(actual.ioBufferDuration - 0.02) < 0.0001, "the sink's 20 ms, not the preferred 5 ms: \(actual)")
        #expect(backend.forcedQuantum == nil && backend.forcedSampleRate == nil)
    }
}

extension BackendEvent {
    /// The clock a `clockObserved` event reports (nil for other events and for "nothing runs").
    fileprivate var observedClock: RunningClock? {
        if case .clockObserved(let clock) = self { return clock }
        return nil
    }
}

/// A card switching profile on PulseAudio (analog to HDMI in pavucontrol's Configuration tab,
/// or a headset to its call profile): the server removes the old profile's sink, creates the new
/// one's, then says the card changed. A sink that goes while its card stays leaves with the
/// card's profile; one whose card goes after it (a headset disconnected) is gone. Recorded card
/// data again: a private server has no cards.
@Suite("PulseAudio: a card switching profile is a route change, not an unplug")
struct PulseAudioCardProfileTests {
    static let analogProfile = "output:analog-stereo+input:analog-stereo"

    static func hdmiSink() -> PulseDevice {
        PulseDevice(
            kind: .sink, index: 2, name: "alsa_output.pci-0000_00_1f.3.hdmi-stereo", description: "Built-in Audio Digital Stereo (HDMI)",
            properties: ["device.api": "alsa", "device.class": "sound", "device.bus": "pci", "device.string": "hdmi:0"],
            ports: [PulsePort(name: "hdmi-output-0", description: "HDMI / DisplayPort", priority: 5900, availability: .yes, type: 10)],
            activePort: "hdmi-output-0", state: .running, monitorOf: nil, card: 0, ownerModule: 7, sampleRate: 48000, channels: 2,
            latency: 0, configuredLatency: 0)
    }

    static func musicOnTheCard() -> (PulseSnapshot, PulseStream) {
        var snapshot = PulseSnapshot()
        snapshot.server.serverName = "pulseaudio"
        let analog = PulseAudioPortTests.laptopSink(headphones: .no)
        snapshot.server.defaultSinkName = analog.name
        snapshot.sinks[analog.index] = analog
        snapshot.cards[0] = PulseCard(index: 0, name: "alsa_card.pci-0000_00_1f.3", activeProfile: analogProfile)
        let music = PulseStream(
            kind: .sinkInput, index: 5, name: "playback", device: analog.index, client: 3,
            properties: ["media.role": "music", "application.name": "Rhythmbox", "module-stream-restore.id": "sink-input-by-media-role:music"],
            corked: false, muted: false, channelVolumes: [65536, 65536], volumeWritable: true, sampleRate: 44100, bufferLatency: 0)
        snapshot.sinkInputs[music.index] = music
        return (snapshot, music)
    }

    static func kinds(_ events: [BackendEvent]) -> [String] {
        ProfileSwitchWatchTests.names(events).filter { $0 != "other" }
    }

    /// A backend on recorded data, synced with the music on the card; the events it told since.
    final class Recorded: @unchecked Sendable {
        let backend = PulseAudioPortTests.offlineBackend()
        var events: [BackendEvent] = []
        var snapshot: PulseSnapshot

        init() {
            snapshot = PulseAudioCardProfileTests.musicOnTheCard().0
            backend.onEvent.wire { [unowned self] in self.events.append($0) }
            backend.handle(.synced, in: snapshot)
        }

        /// The analog sink goes, as it does first in a switch and in a disconnect.
        func analogSinkGoes() {
            let analog = snapshot.sinks.removeValue(forKey: 1)!
            backend.handle(.deviceRemoved(analog), in: snapshot)
        }
    }

    @Test func theOldSinkLeavesWithTheProfileAndTheCardSaysWhichCame() {
        let recorded = Recorded()
        #expect(Self.kinds(recorded.events) == ["card 0 profile \(Self.analogProfile)"])
        recorded.events.removeAll()

        recorded.analogSinkGoes()
        let hdmi = Self.hdmiSink()
        recorded.snapshot.sinks[hdmi.index] = hdmi
        recorded.backend.handle(.deviceAdded(hdmi), in: recorded.snapshot)
        recorded.snapshot.cards[0]?.activeProfile = "output:hdmi-stereo"
        recorded.backend.handle(.cardChanged(recorded.snapshot.cards[0]!), in: recorded.snapshot)
        #expect(Self.kinds(recorded.events) == [
            "left with profile \(PulseAudioPortTests.sinkName):analog-output-speaker",
            "appeared \(hdmi.name):hdmi-output-0",
            "card 0 profile output:hdmi-stereo",
        ])
    }

    @Test func aSinkWhoseCardGoesAfterItIsGone() {
        let recorded = Recorded()
        recorded.events.removeAll()
        recorded.analogSinkGoes()
        let card = recorded.snapshot.cards.removeValue(forKey: 0)!
        recorded.backend.handle(.cardRemoved(card), in: recorded.snapshot)
        #expect(Self.kinds(recorded.events) == [
            "left with profile \(PulseAudioPortTests.sinkName):analog-output-speaker",
            "removed \(PulseAudioPortTests.sinkName):analog-output-speaker",
        ])
    }

    /// The whole chain (the real coordinator, a virtual loop): the switch pauses nothing; the
    /// card unplugged pauses the music.
    @Test func aSwitchLeavesTheMusicPlayingAndADisconnectPausesIt() throws {
        let backend = PulseAudioPortTests.offlineBackend()
        let loop = VirtualLoop()
        let coordinator = try PolicyCoordinator.onShippedRules(backend, loop: loop)
        backend.onEvent.wire { coordinator.handle($0) }
        var (snapshot, music) = Self.musicOnTheCard()
        backend.handle(.synced, in: snapshot)

        let analog = snapshot.sinks.removeValue(forKey: 1)!
        backend.handle(.deviceRemoved(analog), in: snapshot)
        let hdmi = Self.hdmiSink()
        snapshot.sinks[hdmi.index] = hdmi
        snapshot.server.defaultSinkName = hdmi.name
        backend.handle(.deviceAdded(hdmi), in: snapshot)
        var moved = music
        moved.device = hdmi.index  // the server moves the old sink's streams to the new one
        snapshot.sinkInputs[moved.index] = moved
        backend.handle(.streamChanged(moved, previous: music), in: snapshot)
        snapshot.cards[0]?.activeProfile = "output:hdmi-stereo"
        backend.handle(.cardChanged(snapshot.cards[0]!), in: snapshot)
        loop.advance(by: .seconds(4))  // past the switch's bound
        #expect(!backend.isHeld(.playback(5)), "a profile switch is no unplug")

        snapshot.sinks.removeValue(forKey: hdmi.index)
        backend.handle(.deviceRemoved(hdmi), in: snapshot)
        let card = snapshot.cards.removeValue(forKey: 0)!
        backend.handle(.cardRemoved(card), in: snapshot)
        #expect(backend.isHeld(.playback(5)), "the card went: paused on unplug")
    }
}
