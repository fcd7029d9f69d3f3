import SessionBus
import SessionPolicy

/// `org.audiosession.Session1` methods: only the connection that created a session may call them.
/// Loop thread.
extension SessionService {
    func handleSessionCall(_ call: BusCall) {
        guard let id = Self.sessionID(fromPath: call.path), let session = coordinator.explicitSessions[id] else {
            return call.fail(WireValues.error(.expiredSession, "no session at \(call.path)"))
        }
        guard session.owner.uniqueName == call.caller.uniqueName else {
            return call.fail(WireValues.error(
                .missingEntitlement, "\(call.path) belongs to another connection (\(session.owner.uniqueName))"))
        }
        let arguments = call.arguments
        switch call.member {
        case "SetCategory":
            guard let category = Category(wireName: arguments[0].stringValue ?? "") else {
                return call.fail(WireValues.error(.badParam, "unknown category '\(arguments[0].stringValue ?? "")'"))
            }
            let modeName = arguments[1].stringValue ?? ""
            guard let mode = modeName.isEmpty ? .default : Mode(wireName: modeName) else {
                return call.fail(WireValues.error(.badParam, "unknown mode '\(modeName)'"))
            }
            let bits = UInt(arguments[2].uint32Value ?? 0)
            guard bits & ~CategoryOptions.all.rawValue == 0 else {
                return call.fail(WireValues.error(.badParam, "unknown option bits 0x\(String(bits & ~CategoryOptions.all.rawValue, radix: 16))"))
            }
            answer(call, coordinator.request(.setCategory(id, category, mode: mode, options: CategoryOptions(rawValue: bits)), for: id),
                   "\(category.wireName) does not accept these options")
        case "SetActive":
            let bits = UInt(arguments[1].uint32Value ?? 0)
            guard bits & ~SetActiveOptions.notifyOthersOnDeactivation.rawValue == 0 else {
                return call.fail(WireValues.error(.badParam, "unknown SetActive option bits 0x\(String(bits, radix: 16))"))
            }
            let active = arguments[0].boolValue ?? false
            let options = SetActiveOptions(rawValue: bits)
            if !active {
                return deactivate(id, options: options, call: call)
            }
            answer(call, coordinator.request(.setActive(id, true, options: options), for: id), "activation refused")
        case "SetPreferredSampleRate":
            let hz = arguments[0].doubleValue ?? .nan
            var wish = coordinator.engine.snapshot(of: id)?.preferredHardware ?? HardwareWish()
            wish.sampleRate = hz == 0 ? nil : hz
            answer(call, coordinator.request(.setPreferredHardware(id, wish), for: id), "a sample rate must be 0 (none) or in (0, 1000000] Hz")
        case "SetPreferredIOBufferDuration":
            let seconds = arguments[0].doubleValue ?? .nan
            var wish = coordinator.engine.snapshot(of: id)?.preferredHardware ?? HardwareWish()
            wish.ioBufferDuration = seconds == 0 ? nil : seconds
            answer(call, coordinator.request(.setPreferredHardware(id, wish), for: id), "an I/O buffer duration must be 0 (none) or in (0, 10] s")
        case "SetPreferredInput":
            let uid = arguments[0].stringValue ?? ""
            answer(call, coordinator.request(.setPreferredInput(id, portUID: uid.isEmpty ? nil : uid), for: id),
                   "'\(uid)' is not an available input for this category")
        case "OverrideOutputAudioPort":
            guard let port = OutputOverride(wireName: arguments[0].stringValue ?? "") else {
                return call.fail(WireValues.error(.badParam, "the override is 'none' or 'speaker'"))
            }
            answer(call, coordinator.request(.overrideOutputAudioPort(id, port), for: id), "only playAndRecord may override its output")
        case "SetPreferredInputNumberOfChannels", "SetPreferredOutputNumberOfChannels":
            let count = Int(arguments[0].uint32Value ?? 0)
            let direction: PortDirection = call.member == "SetPreferredInputNumberOfChannels" ? .input : .output
            answer(call, coordinator.request(.setPreferredChannels(id, direction, count == 0 ? nil : count), for: id),
                   "\(count) \(direction.wireName) channels refused")
        case "SetInputGain":
            let gain = arguments[0].doubleValue ?? .nan
            answer(call, coordinator.request(.setInputGain(id, gain), for: id),
                   "an input gain is in [0, 1], for a category with input")
        case "SetInputDataSource", "SetOutputDataSource":
            let direction: PortDirection = call.member == "SetInputDataSource" ? .input : .output
            let raw = arguments[0].int32Value ?? -1
            answer(call, coordinator.request(.setDataSource(id, direction, raw < 0 ? nil : UInt32(raw)), for: id),
                   "data source \(raw) is not one of the session's \(direction.wireName) port's (see \(direction == .input ? "Input" : "Output")DataSources), or the category has no \(direction.wireName)")
        case "SetPrefersNoInterruptionsFromSystemAlerts", "SetPrefersInterruptionOnRouteDisconnect",
             "SetAllowHapticsAndSystemSoundsDuringRecording":
            var preferences = coordinator.engine.snapshot(of: id)?.preferences ?? .default
            let value = arguments[0].boolValue ?? false
            switch call.member {
            case "SetPrefersNoInterruptionsFromSystemAlerts": preferences.prefersNoInterruptionsFromSystemAlerts = value
            case "SetPrefersInterruptionOnRouteDisconnect": preferences.prefersInterruptionOnRouteDisconnect = value
            default: preferences.allowsSystemSoundsDuringRecording = value
            }
            answer(call, coordinator.request(.setPreferences(id, preferences), for: id), "preference refused")
        case "RequestRecordPermission":
            let permission = coordinator.engine.recordPermission(for: session.app)
            guard permission == .undetermined else { return call.reply([.bool(permission == .granted)]) }
            // No one answers for the user: the call waits for `audiosessionctl permission` (or a UI
            // listening for RecordPermissionRequested) to decide.
            pendingPermissionRequests[session.app, default: []].append(
                PendingPermissionRequest(call: call, owner: call.caller.uniqueName))
            try? manager.value?.emit("RecordPermissionRequested", of: SessionAPI.managerInterface, [.string(session.app)])
            logger.info("'\(session.app)' asks for record permission (answer with audiosessionctl permission grant|deny)")
        case "Close":
            coordinator.removeExplicitSession(id)
            sessionObjects.removeValue(forKey: id)?.remove()
            refresh()
            call.reply()
        default:
            call.fail(.failed("unknown method \(call.member)"))
        }
    }

    /// `SetActive(false)`: at once unless its audio still runs (`isBusy`, the policy's word);
    /// then the reply waits until the engine says it stopped, or ``StreamQuietness/busyPatience``
    /// passed — the server reports a stream's end a moment after its app stopped it.
    private func deactivate(_ id: SessionID, options: SetActiveOptions, call: BusCall) {
        if let earlier = pendingDeactivations.removeValue(forKey: id) {
            earlier.deadline.cancel()
            earlier.call.fail(WireValues.error(.isBusy, "another SetActive(false) came after this one"))
        }
        guard coordinator.engine.isBusy(id) else {
            return answer(call, coordinator.request(.setActive(id, false, options: options), for: id), "deactivation refused")
        }
        let deadline = loop.schedule(after: coordinator.activityWatch.quietness.busyPatience) { [weak self] in
            self?.finishDeactivations(waitingOnly: false, only: id)
        }
        pendingDeactivations[id] = PendingDeactivation(call: call, options: options, deadline: deadline)
    }

    /// Answers the waiting deactivations whose audio stopped (or, past their deadline, all of
    /// them — the engine then says `isBusy`).
    func finishDeactivations(waitingOnly: Bool, only: SessionID? = nil) {
        guard !pendingDeactivations.isEmpty else { return }
        for id in pendingDeactivations.keys.sorted() where only == nil || only == id {
            if waitingOnly && coordinator.engine.isBusy(id) { continue }
            guard let pending = pendingDeactivations.removeValue(forKey: id) else { continue }
            pending.deadline.cancel()
            let error = coordinator.request(.setActive(id, false, options: pending.options), for: id)
            answer(pending.call, error, "deactivation refused")
        }
    }

    /// Replies with success, or with the engine's refusal as an AVAudioSession error.
    /// Properties are brought up to date first: a caller that reads one after the reply sees
    /// the new value (the reply and the value travel through the same bus thread, in order).
    private func answer(_ call: BusCall, _ error: AudioSessionError?, _ explanation: String) {
        refresh()
        guard let error else { return call.reply() }
        let message = switch error {
        case .badParam, .incompatibleCategory: explanation
        case .insufficientPriority: "a higher-priority session (a call?) holds the audio"
        case .mediaServicesFailed: "PipeWire is not available"
        case .resourceNotAvailable: "the session's input has no volume control (see IsInputGainSettable)"
        case .isBusy: "its audio still runs: stop or pause its streams first"
        default: error.wireName
        }
        call.fail(WireValues.error(error, message))
    }

    /// `/org/audiosession/Session/7` → session#7.
    static func sessionID(fromPath path: String) -> SessionID? {
        let prefix = "/org/audiosession/Session/"
        guard path.hasPrefix(prefix), let number = UInt64(path.dropFirst(prefix.count)) else { return nil }
        return SessionID(number)
    }
}
