import PipeWireShim

/// A capture stream of ours that listens to one stream node and tells when it becomes audible
/// or silent — as a mixer's meter listens to a sink input.
///
/// Its node is marked `audiosession.meter` (so no policy takes it for an app's stream),
/// passive (it keeps no device awake) and never autoconnected: the session links the target's
/// output ports into it. Not `stream.monitor`: that makes 0.3.65's converter use its peaks
/// resampler, which crashed resampling a 22.05 kHz synthesizer. Processing is not real-time: each buffer is looked at on the loop
/// thread (a large quantum keeps that to ~20 buffers a second), and only a change of
/// audibility is reported.
final class LevelMeter {
    let target: GlobalID
    let threshold: Float
    /// Reported last (nil: nothing heard yet).
    private(set) var audible: Bool?
    /// The meter's own node, once the registry showed it (found by its `targetKey` property:
    /// the registry can show it before the stream's own connection learns its id).
    var nodeID: GlobalID?

    private let stream: OpaquePointer
    private let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
    private let events = UnsafeMutablePointer<pw_stream_events>.allocate(capacity: 1)
    /// Called on the loop thread when audibility changes.
    private let onChange: (LevelMeter, Bool) -> Void
    private var destroyed = false

    /// Property that marks our meters' nodes.
    static let markerKey = "audiosession.meter"
    /// Property that names the node a meter listens to.
    static let targetKey = "audiosession.meter.target"

    init?(target: GlobalID, threshold: Float, core: OpaquePointer, onChange: @escaping (LevelMeter, Bool) -> Void) {
        self.target = target
        self.threshold = threshold
        self.onChange = onChange
        let properties = GraphSession.makeProperties([
            "media.type": "Audio", "media.category": "Capture", "media.role": "Production",
            "media.name": "level of node \(target)", "node.name": "audiosession-meter-\(target)",
            Self.markerKey: "true", Self.targetKey: String(target),
            "node.autoconnect": "false", "node.passive": "true", "node.dont-reconnect": "true",
            "node.latency": "2048/48000", "audio.channels": "1", "audio.position": "MONO",
        ])
        guard let stream = pw_stream_new(core, "audiosession-meter", properties) else {
            hook.deallocate()
            events.deallocate()
            return nil
        }
        self.stream = stream
        hook.initialize(to: spa_hook())
        events.initialize(to: pw_stream_events())
        events.pointee.version = UInt32(PW_VERSION_STREAM_EVENTS)
        events.pointee.process = { data in
            Unmanaged<LevelMeter>.fromOpaque(data!).takeUnretainedValue().process()
        }
        pw_stream_add_listener(stream, hook, events, Unmanaged.passUnretained(self).toOpaque())
        guard pws_stream_connect_mono_capture(stream) >= 0 else {
            destroy()
            return nil
        }
    }

    deinit {
        destroy()
        hook.deallocate()
        events.deallocate()
    }

    /// Disconnects and destroys the stream (its node and links go with it). Idempotent.
    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        detachHook(hook)
        pw_stream_destroy(stream)
    }

    private func process() {
        var peak: Float = 0
        while let buffer = pw_stream_dequeue_buffer(stream) {
            peak = max(peak, pws_buffer_peak_f32(buffer))
            pw_stream_queue_buffer(stream, buffer)
        }
        let now = peak > threshold
        guard now != audible else { return }
        audible = now
        onChange(self, now)
    }
}
