import CPulse

/// A peak meter on one sink input, as pavucontrol's: a record stream of ours on the monitor of
/// the input's sink that carries only that input's audio (`pa_stream_set_monitor_stream`),
/// where the server sends one peak per ``peaksPerSecond`` (`PA_STREAM_PEAK_DETECT`), not the
/// audio. PulseAudio ends such a stream when its input moves to another sink (a hold, the user
/// moving it) or goes: `onEnd` says so once, with the server's reason. Decides nothing: it reports each peak.
///
/// Confined to the connection's loop thread.
public final class PulseLevelMeter: @unchecked Sendable {
    /// Marks our meters' record streams, so that observers leave them out (and people can see
    /// what they are).
    public static let property = "audiosession.level-meter"
    /// The stream-restore record PulseAudio keeps for our meters' record streams (it keeps one
    /// for every stream group): named by us, so that it can be deleted when we go.
    public static let restoreRecord = "audiosession-level-meter"
    /// One peak every 20 ms: within one fragment of PulseAudio's default 25 ms, and the daemon
    /// wakes 50 times a second only while a watched stream plays.
    public static let peaksPerSecond: UInt32 = 50

    /// PulseAudio sends a monitor nothing while its input plays nothing (a client that writes
    /// no data while its stream stays open, as speech-dispatcher does between messages): a
    /// meter that got no peak for this long reports a silent one.
    public static let silentAfter: Duration = .milliseconds(60)

    private let sinkInput: UInt32
    /// Peaks since the last look for silence; the pending look (none while silence was reported
    /// and no peak came since: a quiet meter sets no timers).
    private var peaksSinceLook = 0
    private var look: PulseTimer?
    private weak var connection: PulseConnection?
    private var stream: OpaquePointer?
    private let onPeak: (Float) -> Void
    private var onEnd: ((String) -> Void)?

    /// Whether a record stream carries one of our meters.
    public static func isMeter(_ stream: PulseStream) -> Bool { stream.properties[property] != nil }

    /// Why a meter could not start.
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts metering `sinkInput`; throws when disconnected or refused at once.
    public static func start(
        on sinkInput: UInt32, in connection: PulseConnection, onPeak: @escaping (Float) -> Void, onEnd: @escaping (String) -> Void
    ) throws -> PulseLevelMeter {
        let meter = PulseLevelMeter(sinkInput: sinkInput, connection: connection, onPeak: onPeak, onEnd: onEnd)
        var problem = "not connected"
        connection.withReadyContext { context in
            problem = meter.connect(in: context) ?? ""
            return nil
        }
        guard meter.stream != nil else { throw Refused(description: problem) }
        return meter
    }

    private init(sinkInput: UInt32, connection: PulseConnection, onPeak: @escaping (Float) -> Void, onEnd: @escaping (String) -> Void) {
        self.sinkInput = sinkInput
        self.connection = connection
        self.onPeak = onPeak
        self.onEnd = onEnd
    }

    deinit { release() }

    /// Connects the record stream; the server's reason when it refused at once.
    private func connect(in context: OpaquePointer) -> String? {
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: Self.peaksPerSecond, channels: 1)
        guard let properties = libpulse.pa_proplist_new() else { return "out of memory" }
        _ = libpulse.pa_proplist_sets(properties, Self.property, "\(sinkInput)")
        _ = libpulse.pa_proplist_sets(properties, "media.name", "audiosession level meter of sink input \(sinkInput)")
        _ = libpulse.pa_proplist_sets(properties, "module-stream-restore.id", Self.restoreRecord)
        let created = libpulse.pa_stream_new_with_proplist(context, "audiosession level meter", &spec, nil, properties)
        libpulse.pa_proplist_free(properties)
        guard let created else { return lastError(of: context) }
        stream = created
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        libpulse.pa_stream_set_state_callback(created, { stream, userdata in
            Unmanaged<PulseLevelMeter>.fromOpaque(userdata!).takeUnretainedValue().stateChanged(stream)
        }, userdata)
        libpulse.pa_stream_set_read_callback(created, { stream, _, userdata in
            Unmanaged<PulseLevelMeter>.fromOpaque(userdata!).takeUnretainedValue().read(stream)
        }, userdata)
        _ = libpulse.pa_stream_set_monitor_stream(created, sinkInput)
        // Unset fields are -1 (the server's choice); one float per fragment: each peak as it comes.
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max, fragsize: 4)
        let flags = pa_stream_flags_t(
            rawValue: PA_STREAM_PEAK_DETECT.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_DONT_MOVE.rawValue
                | PA_STREAM_DONT_INHIBIT_AUTO_SUSPEND.rawValue)
        guard libpulse.pa_stream_connect_record(created, nil, &attributes, flags) >= 0 else {
            let reason = lastError(of: context)
            release()
            return reason
        }
        return nil
    }

    private func read(_ stream: OpaquePointer?) {
        guard let stream, stream == self.stream else { return }
        var peak: Float?
        var data: UnsafeRawPointer?
        var length = 0
        while libpulse.pa_stream_peek(stream, &data, &length) == 0, length > 0 {
            // No data with a length: a hole in the stream, dropped like data.
            if let data {
                for index in 0..<(length / MemoryLayout<Float>.size) {
                    let sample = abs(data.loadUnaligned(fromByteOffset: index * MemoryLayout<Float>.size, as: Float.self))
                    peak = max(peak ?? 0, sample)
                }
            }
            _ = libpulse.pa_stream_drop(stream)
        }
        guard let peak else { return }
        peaksSinceLook += 1
        if look == nil { lookForSilenceLater() }
        onPeak(peak)
    }

    private func lookForSilenceLater() {
        look = connection?.schedule(after: Self.silentAfter) { [weak self] in self?.lookForSilence() }
    }

    private func lookForSilence() {
        guard stream != nil else { return }
        if peaksSinceLook > 0 {
            peaksSinceLook = 0
            lookForSilenceLater()
        } else {
            look = nil
            onPeak(0)
        }
    }

    private func stateChanged(_ stream: OpaquePointer?) {
        guard let stream, stream == self.stream else { return }
        let state = libpulse.pa_stream_get_state(stream)
        // Ready: an input that plays nothing yet sends nothing.
        if state == PA_STREAM_READY, look == nil { lookForSilenceLater() }
        guard state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED else { return }
        // Inside the stream's own callback: it is let go in the loop's next turn.
        let ended = onEnd
        onEnd = nil
        let reason = state == PA_STREAM_TERMINATED ? "ended" : libpulse.pa_stream_get_context(stream).map(lastError(of:)) ?? "failed"
        connection?.performLater { [self] in release() }
        ended?(reason)
    }

    /// Stops metering (nothing more is reported).
    public func stop() {
        onEnd = nil
        release()
    }

    private func release() {
        look?.cancel()
        look = nil
        guard let stream else { return }
        self.stream = nil
        libpulse.pa_stream_set_state_callback(stream, nil, nil)
        libpulse.pa_stream_set_read_callback(stream, nil, nil)
        let state = libpulse.pa_stream_get_state(stream)
        if state == PA_STREAM_READY || state == PA_STREAM_CREATING {
            _ = libpulse.pa_stream_disconnect(stream)
        }
        libpulse.pa_stream_unref(stream)
    }
}
