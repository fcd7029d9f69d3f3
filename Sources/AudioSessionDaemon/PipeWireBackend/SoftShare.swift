import PipeWireGraph

/// The policy's share of one PipeWire stream's level (a duck's gain, a policy mute), carried in
/// the stream converter's `softVolumes` and `softMute` over its user's `channelVolumes` and
/// `mute` (``NodeProps``).
///
/// Why there: the converter applies the soft values instead of the user's from the moment they
/// are written until anyone writes the user's again. So the user's own values stay what mixers
/// show, and what WirePlumber 0.5 saves for the app's next start (it saves `volume`,
/// `channelVolumes` and `mute`, never the soft ones): a duck or a mute of ours is never
/// remembered as the app's volume, even when the app quits in the middle of it. And no
/// converter ramp of any PipeWire version touches them.
///
/// A write of the user's values (a mixer, the app, pipewire-pulse applying a pulse client's
/// volume once its format is known) silently drops ours, so ours is written again:
/// - whenever the user's values differ from those our last write was computed from;
/// - once the stream runs, when our last write went out before it did (format negotiation
///   comes before that, and may apply the app's own values again).
/// A write of values equal to the user's current ones while the stream runs cannot be told from
/// nothing: it drops our share until our next write (the stream is then louder, never quieter,
/// than the policy asked).
struct SoftShare: Equatable {
    /// The user's level, as the converter's Props report it.
    struct UserLevel: Equatable {
        var channelVolumes: [Float]
        var mute: Bool

        /// `channels`: the stream's channels (its ports, in DSP mode). PipeWire 1.6's converter
        /// reports no channel volumes at all until someone sets its Props (a native stream that
        /// never set its volume, with no session manager restoring one): it applies 1.0 on each
        /// channel then, and that is the user's level.
        init?(_ props: NodeProps?, channels: Int = 0) {
            guard let props else { return nil }
            if !props.channelVolumes.isEmpty {
                channelVolumes = props.channelVolumes
            } else if channels > 0 {
                channelVolumes = Array(repeating: 1, count: channels)
            } else {
                return nil
            }
            mute = props.mute ?? false
        }
    }

    /// Our factor over the user's channel volumes.
    var gain: Float = 1
    /// Our mute, over the user's.
    var muted = false
    /// The user's level our last write was computed from (nil: nothing written yet).
    private(set) var writtenOver: UserLevel?
    /// Whether our last write went out while the stream ran.
    private(set) var writtenWhileRunning = false

    /// Our share changes nothing: the soft values are the user's.
    var isIdentity: Bool { gain == 1 && !muted }

    /// The soft values to write over `user` now.
    mutating func write(over user: UserLevel, running: Bool) -> (volumes: [Float], mute: Bool) {
        writtenOver = user
        writtenWhileRunning = running
        return (user.channelVolumes.map { $0 * gain }, user.mute || muted)
    }

    /// What a report of the stream's Props asks of us.
    enum Verdict: Equatable {
        /// Write our share again.
        case rewrite
        /// The converter applies exactly the user's values, and ours asks for nothing more:
        /// the share can be forgotten.
        case done
        /// Nothing to do.
        case keep
    }

    func verdict(on props: NodeProps, channels: Int = 0, running: Bool) -> Verdict {
        guard let user = UserLevel(props, channels: channels) else { return .keep }
        // Not written yet (asked before the level was known: even the identity, which a
        // restore after a crash writes over what the dead run left), or over another level.
        if user != writtenOver { return .rewrite }
        if isIdentity {
            let applied = props.softVolumes == user.channelVolumes && (props.softMute ?? false) == user.mute
            return applied ? .done : .keep
        }
        return running && !writtenWhileRunning ? .rewrite : .keep
    }
}
