@testable import SessionPolicy

/// Turns plain random integers (which PropertyBased generates and shrinks) into a
/// sequence of policy events over a small universe of sessions, streams and ports.
struct RandomScenario {
    static let sessionCount = 8

    /// Classifications with valid category/option pairs, covering every arbitration path.
    static let classifications: [(Category, Mode, CategoryOptions)] = [
        (.ambient, .default, []),
        (.soloAmbient, .default, []),
        (.playback, .default, []),
        (.playback, .default, [.mixWithOthers]),
        (.playback, .default, [.duckOthers]),
        (.playback, .spokenAudio, []),
        (.playback, .voicePrompt, [.duckOthers, .interruptSpokenAudioAndMixWithOthers]),
        (.playAndRecord, .voiceChat, []),
        (.record, .default, []),
        (.ambient, .default, [.duckOthers]),
        (.playAndRecord, .default, [.mixWithOthers, .defaultToSpeaker]),
    ]

    static let ports: [Port] = [
        Port(uid: "speaker", nodeID: 1, type: .builtInSpeaker, direction: .output),
        Port(uid: "headphones", nodeID: 2, type: .headphones, direction: .output),
        Port(uid: "usb", nodeID: 3, type: .usbAudio, direction: .output),
        Port(uid: "mic", nodeID: 4, type: .builtInMic, direction: .input),
        Port(uid: "headset-mic", nodeID: 5, type: .headsetMic, direction: .input),
    ]

    static func classification(_ seed: Int) -> Classification {
        let (category, mode, options) = classifications[seed % classifications.count]
        let priorityClass = PriorityClass.builtIn[(seed / 16) % PriorityClass.builtIn.count]
        return Classification(category: category, mode: mode, options: options, priorityClass: priorityClass)
    }

    static func descriptor(_ seed: Int) -> SessionDescriptor {
        let kind: SessionKind = seed % 3 == 0 ? .explicit : .implicit
        let capabilities: Set<InterruptionMethod>? = (seed / 7) % 2 == 0 ? nil : [.mpris, .unlink, .mute]
        return SessionDescriptor(kind: kind, app: "app\((seed / 5) % 4)", classification: classification(seed / 3), capabilities: capabilities)
    }

    /// The events of one scenario: the sessions first, then the random steps.
    static func events(sessions: [Int], steps: [Int]) -> [PolicyEvent] {
        var events: [PolicyEvent] = [.devicesEnumerated(Array(ports.prefix(4)), defaultOutput: "speaker", defaultInput: "mic")]
        for (index, seed) in sessions.enumerated() {
            events.append(.sessionCreated(SessionID(UInt64(index)), descriptor(seed)))
        }
        // Streams are named by session and slot so that stops and pauses hit real streams.
        for step in steps {
            let session = SessionID(UInt64((step / 32) % sessionCount))
            let slot = UInt32((step / 256) % 3)
            let stream = StreamID(slot == 2 ? .capture : .playback, UInt32(session.rawValue) * 8 + slot)  // slot 2 records
            let other = step / 1024
            switch step % 32 {
            case 0..<5: events.append(.setActive(session, true, options: []))
            case 5..<8: events.append(.setActive(session, false, options: other % 2 == 0 ? .notifyOthersOnDeactivation : []))
            case 8..<14: events.append(.streamStarted(session, stream))
            case 14..<18: events.append(.streamStopped(stream))
            case 18..<20: events.append(.streamPausedByUser(stream))
            case 20: events.append(.deviceAdded(ports[other % ports.count]))
            case 21: events.append(.deviceRemoved(uid: ports[other % ports.count].uid))
            case 22: events.append(.silentMode(other % 2 == 0))
            case 23:
                let (category, mode, options) = classifications[other % classifications.count]
                events.append(.setCategory(session, category, mode: mode, options: options))
            case 24: events.append(.reclassify(session, classification(other)))
            case 25:
                events.append(.sessionRemoved(session))
                events.append(.sessionCreated(session, descriptor(other)))
            case 26: events.append(.recordPermissionChanged(app: "app\(other % 4)", [.granted, .denied, .undetermined][other % 3]))
            case 27: events.append(.setPreferredHardware(session, HardwareWish(sampleRate: [44_100, 48_000, 96_000][other % 3], ioBufferDuration: [0.005, 0.01, 0.02][(other / 3) % 3])))
            case 28: events.append(other % 2 == 0 ? .graphLost : .graphRestored)
            case 29: events.append(.screenLocked(other % 2 == 0))
            case 30:
                events.append(other % 3 == 2 ? .openingEnded(session) : .capabilitiesChanged(session, other % 2 == 0 ? [.unlink] : [.mpris, .unlink]))
            default:
                let input = ports[3 + other / 8 % 2].device
                switch other % 8 {
                case 0: events.append(.inputMuted(input, other / 8 % 2 == 0))
                case 1:
                    events.append(.setPreferences(session, SessionPreferences(
                        prefersNoInterruptionsFromSystemAlerts: other / 8 % 2 == 0, prefersInterruptionOnRouteDisconnect: other / 16 % 2 == 0,
                        allowsSystemSoundsDuringRecording: other / 32 % 2 == 0)))
                case 2: events.append(.setInputGain(session, [0, 0.5, 1, 1.5, -1][other / 8 % 5]))
                case 3: events.append(.setDataSource(session, other / 8 % 2 == 0 ? .input : .output, [nil, 0, 1, 7][other / 16 % 4]))
                case 4:
                    let sources = [DataSource(id: 0, name: "Internal Microphone"), DataSource(id: 1, name: "Headset Microphone")]
                    events.append(.dataSourcesChanged(input, other / 16 % 3 == 2 ? nil : DeviceDataSources(sources: sources, selected: UInt32(other / 16 % 3))))
                case 5: events.append(other / 8 % 2 == 0 ? .hardwareIdle : .hardwareObserved(sampleRate: 48_000, quantum: [256, 1024][other / 16 % 2]))
                case 6: events.append(.inputVolumeChanged(input, [nil, 0.3, 1.0][other / 8 % 3]))
                default: events.append(.defaultDeviceChanged(.output, uid: ports[other / 8 % 3].uid))
                }
            }
        }
        return events
    }
}

/// What a daemon would believe after carrying out every decision: the check that the
/// decision stream itself (not just the engine's internals) restores everything.
struct DaemonView {
    var gains: [SessionID: Double] = [:]
    var interrupted: Set<SessionID> = []

    mutating func apply(_ decisions: [PolicyDecision]) {
        for decision in decisions {
            switch decision {
            case .setGain(let id, let gain, _): gains[id] = gain
            case .interruptionBegan(let id, _, _): interrupted.insert(id)
            case .interruptionEnded(let id, _, _): interrupted.remove(id)
            // Deactivated while interrupted: no ended will come.
            case .deactivated(let id): interrupted.remove(id)
            // Reactivated by its app while interrupted: it plays again.
            case .activated(let id): interrupted.remove(id)
            default: break
            }
        }
    }

    mutating func forget(_ id: SessionID) {
        gains[id] = nil
        interrupted.remove(id)
    }

    func gain(_ id: SessionID) -> Double { gains[id] ?? 1.0 }
}

/// An independent, brute-force statement of the arbitration rules (O(n²), no bitmasks),
/// to check the engine's single walk against.
struct ArbitrationOracle {
    let configuration: PolicyConfiguration

    func dominates(_ d: SessionSnapshot, _ x: SessionSnapshot) -> Bool {
        if d.priorityClass.priority != x.priorityClass.priority { return d.priorityClass.priority > x.priorityClass.priority }
        return (d.activatedAt ?? .zero) > (x.activatedAt ?? .zero)
    }

    /// What `d` does to `x`; an interruption of a spared recorder (the desktop's) is none at all.
    func effect(of d: SessionSnapshot, on x: SessionSnapshot) -> Interaction {
        let effect = unspared(of: d, on: x)
        return effect == .interrupt && isSpared(x) ? .mix : effect
    }

    /// A recorder the configuration spares (the `record` category, or only capture streams),
    /// or an app still opening its streams.
    func isSpared(_ x: SessionSnapshot) -> Bool {
        if x.isOpening { return true }
        return configuration.sparesRecorders && (x.category == .record || (!x.streams.isEmpty && x.streams.allSatisfy { $0.direction == .capture }))
    }

    private func unspared(of d: SessionSnapshot, on x: SessionSnapshot) -> Interaction {
        let dc = try! SessionConfiguration(category: d.category, mode: d.mode, options: d.options)
        let xc = try! SessionConfiguration(category: x.category, mode: x.mode, options: x.options)
        let strict = configuration.equalClassRule == .categoryRules
        var fromOptions = Interaction.mix
        if dc.effectiveOptions.contains(.duckOthers) { fromOptions = .duck }
        if dc.effectiveOptions.interruptsSpokenAudio && xc.effectiveMode == .spokenAudio { fromOptions = .interrupt }
        let categoryRule: Interaction = !dc.isMixable && !xc.isMixable ? .interrupt : .mix
        if d.priorityClass.name == PriorityClass.notification.name && x.preferences.prefersNoInterruptionsFromSystemAlerts { return .mix }
        if d.priorityClass.priority > x.priorityClass.priority {
            return max(d.priorityClass.towardLower, fromOptions, strict ? categoryRule : .mix)
        }
        return max(fromOptions, strict ? categoryRule : d.priorityClass.towardEqual)
    }

    /// Expected gain of a playing session: the duck level when any playing dominator ducks
    /// it (once, however many), else 1.0.
    func expectedGain(of x: SessionSnapshot, playing: [SessionSnapshot]) -> Double {
        let ducked = playing.contains { d in d.id != x.id && dominates(d, x) && effect(of: d, on: x) == .duck }
        return ducked ? configuration.duckLevel : 1.0
    }
}
