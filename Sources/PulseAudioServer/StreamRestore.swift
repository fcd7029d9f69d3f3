import CPulse
#if canImport(Glibc)
import Glibc
#endif

/// One record of `module-stream-restore`'s database: what PulseAudio gives the next stream of
/// that name (`sink-input-by-media-role:music`, `sink-input-by-application-name:...`). Every
/// volume, mute or move a client makes to a stream is saved into its record.
public struct StreamRestoreEntry: Codable, Hashable, Sendable {
    public var name: String
    /// Channel positions (`pa_channel_position_t`) of the volume, empty when no volume is saved.
    public var channelMap: [Int32]
    public var volume: [UInt32]
    public var device: String?
    public var muted: Bool

    public init(name: String, channelMap: [Int32], volume: [UInt32], device: String?, muted: Bool) {
        self.name = name
        self.channelMap = channelMap
        self.volume = volume
        self.device = device
        self.muted = muted
    }
}

extension PulseConnection {
    /// Reads the whole database; `done` runs on the loop thread (with nil when the server has
    /// no `module-stream-restore`).
    public func readStreamRestore(_ done: @escaping @Sendable ([String: StreamRestoreEntry]?) -> Void) {
        let box = Unmanaged.passRetained(RestoreReadBox(done)).toOpaque()
        var sent = false
        withReadyContext { context in
            sent = true
            return libpulse.pa_ext_stream_restore_read(context, { _, info, endOfList, userdata in
                let box = Unmanaged<RestoreReadBox>.fromOpaque(userdata!)
                if let info = info?.pointee {
                    let entry = StreamRestoreEntry(info)
                    box.takeUnretainedValue().entries[entry.name] = entry
                }
                if endOfList != 0 {
                    let read = box.takeRetainedValue()
                    read.done(endOfList > 0 ? read.entries : nil)
                }
            }, box)
        }
        if !sent { Unmanaged<RestoreReadBox>.fromOpaque(box).takeRetainedValue().done(nil) }
    }

    /// Puts records back as they were (replacing what is there); not applied to streams that
    /// run now (their volumes are restored on their own).
    public func writeStreamRestore(_ entries: [StreamRestoreEntry]) {
        guard !entries.isEmpty else { return }
        let names = entries.map { strdup($0.name) }
        let devices = entries.map { $0.device.map { strdup($0) } ?? nil }
        defer {
            names.forEach { free($0) }
            devices.forEach { free($0) }
        }
        var infos = entries.enumerated().map { index, entry in
            var info = pa_ext_stream_restore_info()
            info.name = UnsafePointer(names[index])
            info.device = devices[index].map { UnsafePointer($0) }
            info.mute = entry.muted ? 1 : 0
            info.volume = PulseVolume.cvolume(entry.volume)
            info.channel_map.channels = UInt8(min(entry.channelMap.count, Int(PA_CHANNELS_MAX)))
            withUnsafeMutableBytes(of: &info.channel_map.map) { bytes in
                let positions = bytes.bindMemory(to: Int32.self)
                for (position, value) in entry.channelMap.prefix(Int(PA_CHANNELS_MAX)).enumerated() { positions[position] = value }
            }
            return info
        }
        withReadyContext { context in
            libpulse.pa_ext_stream_restore_write(context, PA_UPDATE_REPLACE, &infos, UInt32(infos.count), 0, nil, nil)
        }
    }

    /// Removes records that did not exist before we touched their streams.
    public func deleteStreamRestore(_ names: [String]) {
        guard !names.isEmpty else { return }
        let strings = names.map { strdup($0) }
        defer { strings.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = strings.map { UnsafePointer($0) } + [nil]
        withReadyContext { context in libpulse.pa_ext_stream_restore_delete(context, &pointers, nil, nil) }
    }
}

private final class RestoreReadBox {
    var entries: [String: StreamRestoreEntry] = [:]
    let done: @Sendable ([String: StreamRestoreEntry]?) -> Void
    init(_ done: @escaping @Sendable ([String: StreamRestoreEntry]?) -> Void) { self.done = done }
}

extension StreamRestoreEntry {
    init(_ info: pa_ext_stream_restore_info) {
        var map = info.channel_map
        let count = Int(map.channels)
        let positions = withUnsafeBytes(of: &map.map) { Array($0.bindMemory(to: Int32.self).prefix(count)) }
        self.init(
            name: PulseDecoding.string(info.name) ?? "", channelMap: positions,
            volume: PulseVolume.channels(info.volume), device: PulseDecoding.string(info.device), muted: info.mute != 0)
    }
}
