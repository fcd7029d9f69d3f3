import Logging
import PulseAudioServer

/// The daemon on a pure PulseAudio server: a libpulse connection, its loop, and the
/// PulseAudio backend.
final class PulseAudioAttachment: ServerAttachment, Sendable {
    let server = AudioServerKind.pulseaudio
    private let connection: PulseConnection
    private let pulseBackend: PulseAudioBackend
    let loop: DaemonLoop

    init(options: DaemonOptions, logger: Logger) {
        connection = PulseConnection(configuration: .init(server: options.pulseServer, applicationName: "audiosessiond"), logger: logger)
        loop = PulseAudioLoop(connection: connection)
        pulseBackend = PulseAudioBackend(connection: connection, loop: loop, stateDirectory: options.stateDirectory, logger: logger)
    }

    var backend: AudioBackend { pulseBackend }

    func start(onEvent: @escaping @Sendable (BackendEvent) -> Void) {
        let backend = pulseBackend
        backend.onEvent.wire(onEvent)  // before the loop thread runs
        connection.setObserver { event, snapshot in backend.handle(event, in: snapshot) }
        connection.start()
    }

    /// Held streams go back, our parking devices are unloaded, PulseAudio's role modules
    /// loaded, stream-restore records put back.
    func undoBackendState(then done: @escaping @Sendable () -> Void) { pulseBackend.undoServerChanges(then: done) }

    func flush(_ done: @escaping @Sendable () -> Void) { connection.roundTrip(done) }

    func stop() { connection.stop() }
}
