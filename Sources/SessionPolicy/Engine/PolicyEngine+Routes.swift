/// A port the engine knows, with its "last in" order.
struct PortRecord: Sendable {
    var port: Port
    var available: Bool
    /// Higher = more recently plugged in or chosen as default.
    var lastIn: UInt64
    /// Its node went with its device's old profile: routes keep it (nothing plays there
    /// meanwhile) until the new profile's port of its direction takes its place.
    var leavingWithProfile = false
}

/// Devices and routes: last in wins, and each session's route follows its category.
extension PolicyEngine {

    /// The selector over the ports available now, most recent first.
    func routeSelector() -> RouteSelector {
        let available = ports.filter(\.available).sorted { $0.lastIn > $1.lastIn }.map(\.port)
        return RouteSelector(portsMostRecentFirst: available)
    }

    func routeRequest(_ state: SessionState) -> RouteSelector.Request {
        RouteSelector.Request(
            configuration: state.configuration, preferredInputUID: resolvedPreferredInput(of: state),
            outputOverride: state.outputOverride)
    }

    /// Whether a category needs ports at all (audioProcessing does not).
    func needsRoute(_ state: SessionState) -> Bool {
        state.configuration.category.hasInput || state.configuration.category.hasOutput
    }

    mutating func bumpLastIn(_ uid: String) {
        guard let index = ports.firstIndex(where: { $0.port.uid == uid }) else { return }
        ports[index].lastIn = nextPortSerial
        nextPortSerial += 1
    }

    /// Whether a newly available port takes over ("last in wins"). Ports of an ignored type
    /// (HDMI by default, like PulseAudio's switch-on-connect) join at the back instead.
    func takesOver(_ port: Port) -> Bool {
        !configuration.routeTakeoverIgnoredTypes.contains(port.type)
    }

    /// The "last in" stamp of a port that becomes available now.
    mutating func arrivalStamp(for port: Port) -> UInt64 {
        guard takesOver(port) else { return 0 }
        defer { nextPortSerial += 1 }
        return nextPortSerial
    }

    /// Devices present at start-up (or when the graph comes back) are not "newly available":
    /// the default is the configured one, else the highest priority — not the last enumerated.
    /// So they are entered lowest priority first (discovery order among equals), and the
    /// configured defaults last. Last in wins only for devices that appear later.
    mutating func enumerateDevices(_ list: [Port], defaultOutput: String?, defaultInput: String?) {
        ports = []
        switchingDevices = [:]
        let ranked = list.enumerated().sorted { ($0.element.priority, $0.offset) < ($1.element.priority, $1.offset) }.map(\.element)
        for port in ranked {
            ports.removeAll { $0.port.uid == port.uid }
            ports.append(PortRecord(port: port, available: true, lastIn: arrivalStamp(for: port)))
        }
        if let defaultInput { bumpLastIn(defaultInput) }
        if let defaultOutput { bumpLastIn(defaultOutput) }
        rerouteAll(reason: .routeConfigurationChange, lost: [])
    }

    mutating func addDevice(_ port: Port) {
        if let device = port.deviceID, let state = switchingDevices[device] {
            return arriveWithProfile(port, in: state)
        }
        ports.removeAll { $0.port.uid == port.uid }
        ports.append(PortRecord(port: port, available: true, lastIn: arrivalStamp(for: port)))
        plugged(port)
    }

    mutating func removeDevice(_ uid: String) {
        guard let index = ports.firstIndex(where: { $0.port.uid == uid }) else { return }
        let record = ports.remove(at: index)
        if record.available { unplugged(uid) }
    }

    // MARK: - Profile switches

    /// The port's node went while its device stays: no route changes yet, and the device's
    /// ports that come next take its place instead of being plugged in.
    mutating func beginProfileSwitch(_ uid: String) {
        guard let index = ports.firstIndex(where: { $0.port.uid == uid }), let device = ports[index].port.deviceID else {
            return removeDevice(uid)
        }
        ports[index].leavingWithProfile = true
        if var state = switchingDevices[device] {
            // A port of the profile it switched to leaves: it switches again, with a bound of its
            // own. Another port of the profile it left belongs to this switch.
            guard state.arrived.contains(uid) else { return }
            tellHeldRouteChanges(of: &state)
            state.number += 1
            state.isOurs = takeRequestedSwitch(of: device)
            // The profile it leaves is the last one reported only if the last switch's report came.
            state.from = state.saved == nil ? nil : reportedProfiles[device]
            state.saved = nil
            state.arrived = []
            switchingDevices[device] = state
            emit(.awaitProfileSwitch(device: device, switch: state.number, within: ProfileSwitch.bound))
        } else {
            let stamp = ports.filter { $0.port.deviceID == device }.map(\.lastIn).max() ?? 0
            switchingDevices[device] = ProfileSwitch.State(
                stamp: stamp, number: 1, isOurs: takeRequestedSwitch(of: device), from: reportedProfiles[device])
            emit(.awaitProfileSwitch(device: device, switch: 1, within: ProfileSwitch.bound))
        }
    }

    /// A port of the new profile: it takes the leaving port's place of its direction and is
    /// linked at once; the sessions on the device hear one route change (``ProfileSwitch``),
    /// once the switch's reason is known. Nothing was unplugged, so nothing pauses and
    /// overrides stay.
    mutating func arriveWithProfile(_ port: Port, in state: ProfileSwitch.State) {
        ports.removeAll { $0.port.uid == port.uid || ($0.leavingWithProfile && $0.port.deviceID == port.deviceID && $0.port.direction == port.direction) }
        ports.append(PortRecord(port: port, available: true, lastIn: state.stamp))
        guard let device = port.deviceID else { return }
        var state = state
        state.arrived.insert(port.uid)
        if let reason = state.reason {
            switchingDevices[device] = state
            rerouteAll(reason: reason, lost: [])
        } else {
            let notices = rerouteAll(reason: .routeConfigurationChange, lost: [], holdingNotices: true)
            // One route change per session for the whole switch: the route it had before.
            for notice in notices where !state.heldNotices.contains(where: { $0.session == notice.session }) {
                state.heldNotices.append(notice)
            }
            switchingDevices[device] = state
        }
        headsetPortArrived(port)
    }

    /// The device's active profile, as it reports it: the reason a switch under way was
    /// waiting for, unless it is the profile the device had before (a late report of it).
    mutating func reportProfile(_ device: String, _ profile: String, saved: Bool) {
        reportedProfiles[device] = profile
        guard var state = switchingDevices[device], state.saved == nil, profile != state.from else { return }
        state.saved = saved
        tellHeldRouteChanges(of: &state)
        switchingDevices[device] = state
    }

    /// The route changes a switch held: each session whose route is still not the one it had
    /// hears one, with the switch's reason (the reason iOS gives a change without a plug if
    /// the device never said).
    mutating func tellHeldRouteChanges(of state: inout ProfileSwitch.State) {
        let reason = state.reason ?? .routeConfigurationChange
        for (id, previous) in state.heldNotices {
            guard let route = sessions[id]?.route, route != previous else { continue }
            emit(.routeChanged(id, reason: reason, previous: previous))
        }
        state.heldNotices = []
    }

    /// Whether a port of the session's route went with its device's profile and was not
    /// replaced yet: its streams wait unlinked, and their idleness is no stop of their app's.
    public func awaitsProfileSwitch(_ id: SessionID) -> Bool {
        guard !switchingDevices.isEmpty, let route = sessions[id]?.route else { return false }
        let leaving = Set(ports.filter(\.leavingWithProfile).map(\.port.uid))
        return (route.inputs + route.outputs).contains { leaving.contains($0.uid) }
    }

    /// The bound is over: a port its new profile did not replace is gone (a headset switched
    /// `off`); later ports of the device are plugged in as usual. Route changes still held
    /// are told now.
    mutating func endProfileSwitch(_ device: String, switch number: UInt64) {
        guard var state = switchingDevices[device], state.number == number else { return }  // a later switch has its own bound
        tellHeldRouteChanges(of: &state)
        switchingDevices[device] = nil
        for uid in ports.filter({ $0.leavingWithProfile && $0.port.deviceID == device }).map(\.port.uid) { removeDevice(uid) }
    }

    mutating func changeAvailability(_ uid: String, _ available: Bool) {
        guard let index = ports.firstIndex(where: { $0.port.uid == uid }), ports[index].available != available else { return }
        ports[index].available = available
        if available {
            if takesOver(ports[index].port) { bumpLastIn(uid) }
            plugged(ports[index].port)
        } else {
            unplugged(uid)
        }
    }

    mutating func changePort(_ port: Port) {
        guard let index = ports.firstIndex(where: { $0.port.uid == port.uid }), ports[index].port != port else { return }
        ports[index].port = port
        rerouteAll(reason: .routeConfigurationChange, lost: [])
    }

    mutating func changeDefault(_ direction: PortDirection, _ uid: String) {
        guard let record = ports.first(where: { $0.port.uid == uid }), record.port.direction == direction else { return }
        bumpLastIn(uid)
        clearOverrides()
        // The user chose it: an override of the route (reason 4), never a loss, so nothing pauses.
        rerouteAll(reason: .override, lost: [])
    }

    /// A new port: it wins (last in), a new microphone resets preferred inputs, and any
    /// output override ends (it lasts until the next route change).
    mutating func plugged(_ port: Port) {
        if port.direction == .input && !port.type.isBuiltIn {
            for id in sessionOrder { sessions[id]?.preferredInputUID = nil }
        }
        clearOverrides()
        rerouteAll(reason: .newDeviceAvailable, lost: [])
    }

    mutating func unplugged(_ uid: String) {
        clearOverrides()
        for id in sessionOrder where sessions[id]?.preferredInputUID == uid { sessions[id]?.preferredInputUID = nil }
        rerouteAll(reason: .oldDeviceUnavailable, lost: [uid])
    }

    mutating func clearOverrides() {
        for id in sessionOrder where sessions[id]?.outputOverride != OutputOverride.none {
            sessions[id]?.outputOverride = .none
        }
    }

    /// Recomputes every session's route; links, notifies, and pauses on unplug. With
    /// `holdingNotices` (a profile switch whose reason is not known yet) the route changes are
    /// returned, each session's with its route before, instead of told.
    @discardableResult
    mutating func rerouteAll(
        reason: RouteChangeReason, lost: Set<String>, holdingNotices: Bool = false
    ) -> [(session: SessionID, previous: RouteDescription)] {
        var held: [(session: SessionID, previous: RouteDescription)] = []
        let selector = routeSelector()
        var cache: [RouteSelector.Request: RouteDescription] = [:]
        var paused = false
        for id in sessionOrder {
            guard let state = sessions[id] else { continue }
            let request = routeRequest(state)
            let route: RouteDescription
            if let cached = cache[request] {
                route = cached
            } else {
                route = selector.route(for: request)
                cache[request] = route
            }
            let previous = state.route
            guard route != previous else { continue }
            if reason == .newDeviceAvailable, keepsRouteOnArrival(state) { continue }
            sessions[id]?.route = route
            if !state.streams.isEmpty { emit(.link(id, route)) }
            let lostOutput = previous.outputs.contains { lost.contains($0.uid) }
            let noRoute = needsRoute(state) && route.isEmpty
            if holdingNotices, !noRoute {
                held.append((id, previous))
                continue
            }
            // Implicit sessions hear it too: `monitor` and the logs show every session's route change.
            emit(.routeChanged(id, reason: noRoute ? .noSuitableRouteForCategory : reason, previous: previous))
            // Its output went away while it played: a media player pauses (pause on unplug) or,
            // the current media player of the session API, is interrupted (iOS 17).
            guard reason == .oldDeviceUnavailable, lostOutput, state.activity == .active else { continue }
            let pausesOnUnplug = state.kind == .implicit && configuration.pauseOnUnplug.contains(state.configuration.category)
            guard pausesOnUnplug || interruptsOnRouteDisconnect(state), !playsElsewhere(state, than: previous) else { continue }
            if pausesOnUnplug {
                emit(.pauseForRouteLoss(id, method: state.interruptionMethod))
                for index in state.streams.indices { sessions[id]?.streams[index].pausedByUser = true }
            } else {
                // Its streams are held (no leak to the speakers) until it activates again. No
                // ended follows.
                emit(.interruptionBegan(id, reason: .routeDisconnected, method: .sessionAPI))
                emit(.pauseForRouteLoss(id, method: .unlink))
            }
            leaveContention(id, resumeHint: false)
            emit(.deactivated(id))
            paused = true
        }
        if paused { arbitrate(cause: nil) }
        return held
    }

    /// An explicit session that is the current media player, active, and kept AVAudioSession's
    /// default `prefersInterruptionOnRouteDisconnect`.
    func interruptsOnRouteDisconnect(_ state: SessionState) -> Bool {
        state.kind == .explicit && state.activity == .active && state.preferences.prefersInterruptionOnRouteDisconnect
            && nowPlaying == state.id
    }

    /// Pause on unplug judges a session by its route, but a stream that named its own target
    /// plays there: a session whose every playback stream is pinned to a device that was not on
    /// its lost route plays on, unpaused.
    func playsElsewhere(_ state: SessionState, than route: RouteDescription) -> Bool {
        let routeDevices = Set(route.outputs.map(\.device))
        let playback = state.streams.filter { $0.direction == .playback }
        return !playback.isEmpty && playback.allSatisfy { stream in
            pinnedStreams[stream.id].map { !routeDevices.contains($0) } ?? false
        }
    }

    /// A session whose category does not follow new devices keeps its route while every port
    /// of it is still there (`routeTakeoverCategories`).
    func keepsRouteOnArrival(_ state: SessionState) -> Bool {
        guard !configuration.routeTakeoverCategories.contains(state.configuration.category), !state.route.isEmpty
        else { return false }
        let available = Set(ports.filter(\.available).map(\.port.uid))
        return (state.route.inputs + state.route.outputs).allSatisfy { available.contains($0.uid) }
    }

    mutating func setPreferredInput(_ id: SessionID, _ uid: String?) {
        guard existing(id), let state = sessions[id] else { return }
        guard state.configuration.category.hasInput else {
            emit(.failed(id, .incompatibleCategory))
            return
        }
        if let uid, !availableInputs(for: state).contains(where: { $0.uid == uid }) {
            emit(.failed(id, .badParam))
            return
        }
        sessions[id]?.preferredInputUID = uid
        reroute(id, reason: .routeConfigurationChange)
    }

    mutating func overrideOutput(_ id: SessionID, _ override: OutputOverride) {
        guard existing(id), let state = sessions[id] else { return }
        guard state.configuration.category == .playAndRecord else {
            emit(.failed(id, .incompatibleCategory))
            return
        }
        sessions[id]?.outputOverride = override
        reroute(id, reason: .override)
    }

    /// One session's route changed by its own request.
    mutating func reroute(_ id: SessionID, reason: RouteChangeReason) {
        guard let state = sessions[id] else { return }
        let route = routeSelector().route(for: routeRequest(state))
        guard route != state.route else { return }
        let previous = state.route
        sessions[id]?.route = route
        if !state.streams.isEmpty { emit(.link(id, route)) }
        emit(.routeChanged(id, reason: reason, previous: previous))
    }
}
