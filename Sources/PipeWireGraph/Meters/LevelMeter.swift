import PipeWireShim

/// A capture stream of ours that listens to one stream node and tells when it becomes audible
/// or silent — as a mixer's meter listens to a sink input.
///
/// Its node is marked `audiosession.meter` (so no policy takes it for an app's stream),
/// passive (it keeps no device awake) and never autoconnected: the session links the target's
/// output ports into it. Not `stream.monitor`: that makes 0.3.65's converter use its peaks
/// resampler, which crashed resampling a 22.05 kHz synthesizer. Each buffer's peak is taken in
/// the data thread, in the cycle that made the sound (`pws_meter`: a stream processed on the
/// loop thread is async, and PipeWire 1.6 gives an async link a quantum of latency, which
/// delayed every duck by one cycle); only a change of audibility reaches the loop thread.
final class LevelMeter {
    let target: GlobalID
    let threshold: Float
    /// Reported last (nil: nothing heard yet).
    private(set) var audible: Bool?
    /// The meter's own node, once the registry showed it (found by its `targetKey` property:
    /// the registry can show it before the stream's own connection learns its id).
    var nodeID: GlobalID?

    private let stream: OpaquePointer
    private var meter: OpaquePointer?
    /// Called on the loop thread when audibility changes.
    private let onChange: (LevelMeter, Bool) -> Void
    private var destroyed = false

    /// Property that marks our meters' nodes.
    static let markerKey = "audiosession.meter"
    /// Property that names the node a meter listens to.
    static let targetKey = "audiosession.meter.target"

    init?(
        target: GlobalID, threshold: Float, core: OpaquePointer, loop: UnsafeMutablePointer<pw_loop>,
        onChange: @escaping (LevelMeter, Bool) -> Void
    ) {
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
        guard let stream = pw_stream_new(core, "audiosession-meter", properties) else { return nil }
        self.stream = stream
        let context = Unmanaged.passUnretained(self).toOpaque()
        meter = pws_meter_new(loop, stream, threshold, { data, audible in
            Unmanaged<LevelMeter>.fromOpaque(data!).takeUnretainedValue().changed(to: audible)
        }, context)
        guard let meter, pws_meter_connect(meter) >= 0 else {
            destroy()
            return nil
        }
    }

    deinit {
        destroy()
    }

    /// Disconnects and destroys the stream (its node and links go with it). Idempotent.
    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        pws_meter_free(meter)
        meter = nil
        pw_stream_destroy(stream)
    }

    private func changed(to now: Bool) {
        guard !destroyed, now != audible else { return }
        audible = now
        onChange(self, now)
    }
}
