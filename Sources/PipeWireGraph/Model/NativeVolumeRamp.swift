/// A volume change the stream's converter carries out itself, in steps on its own clock:
/// PipeWire 0.3.68 added `volumeRampTime`, `volumeRampStepSamples` and `volumeRampScale` to
/// audioconvert's `Props`. Sent together with the target `volume` in one `Props` write.
public struct NativeVolumeRamp: Hashable, Sendable {
    /// How the converter interpolates between the old and the new volume.
    public enum Scale: UInt32, Hashable, Sendable {
        /// Linear in amplitude.
        case linear = 1
        /// The cube of a linear ramp.
        case cubic = 2
    }

    /// Sent as whole milliseconds (`volumeRampTime`), at least one.
    public var duration: Duration
    /// Samples between two steps at the converter's rate (`volumeRampStepSamples`).
    public var stepSamples: Int
    public var scale: Scale

    public init(duration: Duration, stepSamples: Int, scale: Scale = .linear) {
        self.duration = duration
        self.stepSamples = max(1, stepSamples)
        self.scale = scale
    }

    /// A ramp stepping every `step` at `sampleRate`.
    public init(duration: Duration, step: Duration, sampleRate: Int, scale: Scale = .linear) {
        let samples = (Self.seconds(step) * Double(sampleRate)).rounded()
        self.init(duration: duration, stepSamples: Int(samples), scale: scale)
    }

    /// The first release whose audioconvert ramps `Props.volume` natively.
    public static let firstVersion = PipeWireVersion(0, 3, 68)

    /// `duration` in whole milliseconds, rounded, at least 1.
    public var milliseconds: Int32 {
        Int32(clamping: max(1, Int((Self.seconds(duration) * 1000).rounded())))
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension GraphSnapshot {
    /// Whether a `Props` write to `node` can carry a ``NativeVolumeRamp``.
    ///
    /// The ramp is done by the audioconvert that applies the node's volume, and that runs in
    /// the process that owns the node: a `pw_stream`'s in its client (pw-cat, mpv, and
    /// pipewire-pulse for pulse clients), a server-side adapter's in the server. So both the
    /// server and the owning client's library (its `core.version`) must be 0.3.68 or newer; a
    /// client that does not say its version is taken to be too old (older converters ignore
    /// the ramp keys and jump).
    public func rampsVolumeNatively(_ node: GlobalID) -> Bool {
        guard let server = serverVersion, server >= NativeVolumeRamp.firstVersion, let info = nodes[node] else {
            return false
        }
        guard let clientID = info.clientID, let client = clients[clientID] else { return true }
        guard let version = client.properties["core.version"].flatMap(PipeWireVersion.init) else { return false }
        return version >= NativeVolumeRamp.firstVersion
    }
}
