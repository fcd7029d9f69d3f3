import SessionBus
import SessionPolicy

/// A decision as the Manager1 `Decision` signal carries it (for `audiosessionctl monitor`):
/// a kind named like the decision, and its values by name.
struct DecisionEvent {
    var kind: String
    var details: [String: BusValue] = [:]

    init(_ decision: PolicyDecision) {
        switch decision {
        case .activated: kind = "activated"
        case .deactivated: kind = "deactivated"
        case .failed(_, let error):
            kind = "failed"
            details = ["error": .string(error.wireName), "code": .int32(Int32(truncatingIfNeeded: error.code))]
        case .interruptionBegan(_, let reason, let method):
            kind = "interruptionBegan"
            details = ["reason": .string(reason.wireName), "method": .string(method.wireName)]
        case .interruptionEnded(_, let options, let method):
            kind = "interruptionEnded"
            details = ["options": .strings(options.wireNames), "method": .string(method.wireName)]
        case .setGain(_, let gain, let ramp):
            kind = "gain"
            details = ["gain": .double(gain), "rampSeconds": .double(Self.seconds(ramp))]
        case .setSilenced(_, let silenced):
            kind = "silenced"
            details = ["silenced": .bool(silenced)]
        case .setCaptureSilenced(_, let silenced):
            kind = "captureSilenced"
            details = ["silenced": .bool(silenced)]
        case .link(_, let route):
            kind = "link"
            details = ["route": WireValues.route(route)]
        case .routeChanged(_, let reason, let previous):
            kind = "routeChanged"
            details = ["reason": .string(reason.wireName), "previousRoute": WireValues.route(previous)]
        case .pauseForRouteLoss(_, let method):
            kind = "pauseForRouteLoss"
            details = ["method": .string(method.wireName)]
        case .secondaryAudioHint(_, let type):
            kind = "silenceSecondaryAudioHint"
            details = ["type": .string(type.wireName)]
        case .setHardware(let choice):
            kind = "hardware"
            details = ["sampleRate": .int32(Int32(choice.sampleRate ?? 0)), "quantum": .int32(Int32(choice.quantum ?? 0))]
        case .reportHardware(_, let values):
            kind = "hardwareReported"
            details = ["sampleRate": .double(values.sampleRate), "ioBufferDuration": .double(values.ioBufferDuration)]
        case .mediaServicesLost: kind = "mediaServicesLost"
        case .mediaServicesReset: kind = "mediaServicesReset"
        case .nowPlayingChanged(let id):
            kind = "nowPlaying"
            details = ["session": .uint64(id?.rawValue ?? 0)]
        case .outputVolumeChanged(_, let volume):
            kind = "outputVolume"
            details = ["volume": .double(volume)]
        case .inputGainChanged(_, let gain):
            kind = "inputGain"
            details = ["gain": .double(gain)]
        case .applyInputGain(let device, let gain):
            kind = "applyInputGain"
            details = ["device": .uint32(device.rawValue), "gain": .double(gain ?? -1)]
        case .selectDataSource(let device, let source):
            kind = "selectDataSource"
            details = ["device": .uint32(device.rawValue), "dataSource": .int32(source.map { Int32(truncatingIfNeeded: $0) } ?? -1)]
        case .selectHeadsetProfile(let device, let profile):
            kind = "headsetProfile"
            details = ["device": .string(device), "profile": .string(profile?.wireName ?? "")]
        case .recheckHeadsets(let delay):
            kind = "headsetRecheck"
            details = ["afterSeconds": .double(Self.seconds(delay))]
        case .headsetProfileContested(let device):
            kind = "headsetContested"
            details = ["device": .string(device)]
        case .awaitProfileSwitch(let device, _, let bound):
            kind = "profileSwitch"
            details = ["device": .string(device), "boundSeconds": .double(Self.seconds(bound))]
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
