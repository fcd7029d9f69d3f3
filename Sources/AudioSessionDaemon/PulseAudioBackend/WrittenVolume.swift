import PulseAudioServer
import SessionPolicy

/// A stream's volume as PulseAudio keeps it, in its own steps (the loudest channel), with the
/// linear volume it stands for. A report is matched to a write of ours by its step, and read
/// back as the linear volume we wrote: enforcement sees its own value, not the server's rounding.
struct WrittenVolume: Sendable {
    var step: UInt32
    var linear: Float

    /// What the server reports for a stream of these channel volumes.
    init(reported channels: [UInt32]) {
        step = channels.max() ?? 0
        linear = PulseVolume.linear(channels)
    }

    /// What we write as `linear`, which the server keeps as `step`.
    init(linear: Float, as step: UInt32) {
        self.step = step
        self.linear = linear
    }

    /// A stream's volume, borrowed from what the server reports (`channels`) to write `ours`
    /// (``BorrowedValue``, one step telling a write from another).
    static func borrowed(from channels: [UInt32], writing ours: Self) -> BorrowedValue<Self> {
        BorrowedValue(users: Self(reported: channels), ours: ours) { $0.step == $1.step }
    }
}
