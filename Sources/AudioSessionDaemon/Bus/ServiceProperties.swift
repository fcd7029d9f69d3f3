import SessionBus
import SessionPolicy

/// The values behind the Manager1 and Session1 properties, read from the engine.
extension SessionService {
    func initialManagerProperties() -> [String: BusValue] {
        managerProperties(route: .empty, ports: [])
    }

    /// The rules in force and how they were last read (docs/dbus-api.md, `Rules`).
    private var rulesState: BusValue {
        let read = rules.current
        return .dictionary([
            "files": .strings(read.ruleSet.files), "reads": .uint64(read.reading.reads), "reason": .string(read.reading.reason),
            "outcome": .string(read.reading.outcome.rawValue), "error": .string(read.reading.error.map { "\($0)" } ?? ""),
        ])
    }

    func managerProperties(route: RouteDescription) -> [String: BusValue] {
        managerProperties(route: route, ports: coordinator.engine.offeredPorts)
    }

    private func managerProperties(route: RouteDescription, ports: [Port]) -> [String: BusValue] {
        loop.assertConfined("the manager's properties")
        let hardware = coordinator.engine.actualHardware()
        return [
            "SilentMode": .bool(silentMode),
            // What logind said: a locked screen silences what silent mode does; asleep until it woke.
            "ScreenLocked": .bool(coordinator.engine.screenLocked),
            "Asleep": .bool(coordinator.engine.isAsleep),
            "Rules": rulesState,
            "Linking": .string(coordinator.linkingReason),
            "HeadsetSwitching": .string(coordinator.headsetSwitching),
            "Conflicts": .strings(coordinator.coexistence.conflicts),
            "AudioServer": .string(audioServer),
            "CurrentRoute": WireValues.route(route),
            "AvailableInputs": WireValues.ports(ports.filter { $0.direction == .input }),
            "AvailableOutputs": WireValues.ports(ports.filter { $0.direction == .output }),
            "Sessions": .array(element: "o", sessionObjects.keys.sorted().map { .objectPath(SessionAPI.sessionPath($0.rawValue)) }),
            "NowPlaying": .uint64(coordinator.engine.nowPlaying?.rawValue ?? 0),
            "NowPlayingApp": .string(coordinator.engine.nowPlaying.flatMap { coordinator.engine.snapshot(of: $0)?.label } ?? ""),
            "SampleRate": .double(hardware.sampleRate),
            "IOBufferDuration": .double(hardware.ioBufferDuration),
            // Whether a running driver was seen at these values, or nothing runs.
            "ClockRunning": .bool(coordinator.engine.observedHardware != nil),
        ]
    }

    /// Every Session1 property of an explicit session, or nil if the engine does not know it.
    func sessionProperties(_ id: SessionID) -> [String: BusValue]? {
        let engine = coordinator.engine
        guard let snapshot = engine.snapshot(of: id) else { return nil }
        // What the graph's running clock was seen at; while nothing runs, what it will run at.
        let hardware = engine.actualHardware()
        let route = snapshot.route
        // A quantum is what the graph adds each way at this buffer size.
        let latency = hardware.ioBufferDuration
        let category = snapshot.category
        return [
            "Id": .uint64(id.rawValue),
            "App": .string(snapshot.app),
            "Label": .string(snapshot.label),
            "Category": .string(category.wireName),
            "Mode": .string(snapshot.mode.wireName),
            "Options": .uint32(UInt32(truncatingIfNeeded: snapshot.options.rawValue)),
            "Active": .bool(snapshot.activity == .active),
            "Interrupted": .bool(snapshot.activity == .interrupted),
            "SampleRate": .double(hardware.sampleRate),
            "PreferredSampleRate": .double(snapshot.preferredHardware.sampleRate ?? 0),
            "IOBufferDuration": .double(hardware.ioBufferDuration),
            "PreferredIOBufferDuration": .double(snapshot.preferredHardware.ioBufferDuration ?? 0),
            "InputLatency": .double(category.hasInput ? latency : 0),
            "OutputLatency": .double(category.hasOutput ? latency : 0),
            "InputNumberOfChannels": .uint32(UInt32(route.inputs.map(\.channels).max() ?? 0)),
            "OutputNumberOfChannels": .uint32(UInt32(route.outputs.map(\.channels).max() ?? 0)),
            "OtherAudioPlaying": .bool(engine.isOtherAudioPlaying(for: id)),
            "SecondaryAudioShouldBeSilencedHint": .bool(engine.secondaryAudioShouldBeSilencedHint(for: id)),
            "RecordPermission": .string(engine.recordPermission(for: snapshot.app).wireName),
            "CurrentRoute": WireValues.route(route),
            "AvailableInputs": WireValues.ports(engine.availableInputs(for: id)),
            "PreferredInput": .string(snapshot.preferredInputUID ?? ""),
            "IsNowPlaying": .bool(engine.nowPlaying == id),
            "PromptStyle": .string(engine.promptStyle(for: id).wireName),
            "OutputVolume": .double(engine.outputVolume(for: id)),
            "PreferredInputNumberOfChannels": .uint32(UInt32(snapshot.preferredInputChannels ?? 0)),
            "PreferredOutputNumberOfChannels": .uint32(UInt32(snapshot.preferredOutputChannels ?? 0)),
            "PrefersNoInterruptionsFromSystemAlerts": .bool(snapshot.preferences.prefersNoInterruptionsFromSystemAlerts),
            "PrefersInterruptionOnRouteDisconnect": .bool(snapshot.preferences.prefersInterruptionOnRouteDisconnect),
            "AllowHapticsAndSystemSoundsDuringRecording": .bool(snapshot.preferences.allowsSystemSoundsDuringRecording),
            // Any microphone or line in at all, whatever the category (AVAudioSession's isInputAvailable).
            "IsInputAvailable": .bool(engine.availablePorts.contains { $0.direction == .input }),
            "MaximumInputNumberOfChannels": .uint32(UInt32(route.inputs.map(\.channels).max() ?? 0)),
            "MaximumOutputNumberOfChannels": .uint32(UInt32(route.outputs.map(\.channels).max() ?? 0)),
            "InputGain": .double(engine.inputGain(for: id)),
            "IsInputGainSettable": .bool(engine.isInputGainSettable(for: id)),
            "InputMuted": .bool(engine.isInputMuted(for: id)),
            "InputDataSources": WireValues.dataSources(engine.dataSources(for: id, .input)),
            "InputDataSource": WireValues.dataSourceID(engine.selectedDataSource(for: id, .input)?.id),
            "PreferredInputDataSource": WireValues.dataSourceID(engine.preferredDataSource(for: id, .input)),
            "OutputDataSources": WireValues.dataSources(engine.dataSources(for: id, .output)),
            "OutputDataSource": WireValues.dataSourceID(engine.selectedDataSource(for: id, .output)?.id),
            "PreferredOutputDataSource": WireValues.dataSourceID(engine.preferredDataSource(for: id, .output)),
        ]
    }

    /// One entry of `ListSessions` (explicit and implicit sessions alike).
    func listing(_ snapshot: SessionSnapshot) -> BusValue {
        var entry: [String: BusValue] = [
            "id": .uint64(snapshot.id.rawValue),
            "kind": .string(snapshot.kind.wireName),
            "app": .string(snapshot.app),
            "label": .string(snapshot.label),
            "category": .string(snapshot.category.wireName),
            "mode": .string(snapshot.mode.wireName),
            "options": .strings(snapshot.options.wireNames),
            "priorityClass": .string(snapshot.priorityClass.name),
            "activity": .string(snapshot.activity.wireName),
            "gain": .double(snapshot.gain),
            "silenced": .bool(snapshot.isSilenced),
            "captureSilenced": .bool(snapshot.isCaptureSilenced),
            "route": WireValues.route(snapshot.route),
            "streams": .array(element: "u", snapshot.streams.map { .uint32($0.rawValue) }),
            "nowPlaying": .bool(coordinator.engine.nowPlaying == snapshot.id),
            "heldByMutedInput": .bool(snapshot.isHeldByMutedInput),
            // An interruption can pause it over MPRIS rather than hold its streams.
            "mprisPlayer": .bool(coordinator.mpris?.sessionsWithPlayers.contains(snapshot.id) == true),
        ]
        if let control = coordinator.playerControl {
            entry.merge(mprisListing(snapshot.id, control)) { $1 }
        }
        if let composed = coordinator.sessions.composed[snapshot.id] {
            entry["classifiedBy"] = .string(composed.reason.wireName)
            entry["classifiedWhy"] = .string(composed.reason.explanation)
            if let app = coordinator.sessions.apps[snapshot.id] { entry["appIdentity"] = .string(app.key) }
        } else {
            entry["classifiedBy"] = .string("sessionAPI")
            entry["classifiedWhy"] = .string("the app chose its category over the session API")
        }
        if let explicit = coordinator.explicitSessions[snapshot.id] {
            entry["path"] = .objectPath(SessionAPI.sessionPath(snapshot.id.rawValue))
            entry["owner"] = .string(explicit.owner.uniqueName)
            entry["ownerPid"] = .int32(explicit.owner.pid)
        }
        return .dictionary(entry)
    }

    /// The session's media players as we know them (bus name → `PlaybackStatus`), our pause of
    /// them, and which of them we owe a Play (what the journal keeps).
    private func mprisListing(_ id: SessionID, _ control: PlayerControl) -> [String: BusValue] {
        let pause = control.mpris.pauses[id]
        var players: [String: BusValue] = [:]
        for name in coordinator.playerNames(of: id) {
            if let known = control.mpris.players[name] { players[name] = .string(known.status.rawValue) }
        }
        let owed = pause?.owedPlayers.keys.sorted() ?? []
        return [
            "mprisPlayers": .dictionary(players),
            "mprisPause": .string(WireValues.mprisPause(pause)),
            "mprisOwedPlay": .strings(owed),
        ]
    }
}
