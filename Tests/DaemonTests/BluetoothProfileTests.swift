import Foundation
import PipeWireSandbox
import Testing

/// A Bluetooth headset switching profile (the sandbox's bluez5-shaped headset, switched with
/// `pw-cli` as a mixer or WirePlumber's autoswitch would): its A2DP sink goes and its HFP sink
/// and source come, while the headset stays. The music keeps playing on the headset, and its
/// session hears one route change; only a headset that brings no new profile is unplugged.
/// Read through `playerctl`, `pw-dump` and the daemon's `Decision` signals.
@Suite("Bluetooth: a profile switch is a route change, not an unplug", .serialized)
struct BluetoothProfileTests {
    typealias Rig = MPRISInterruptionTests.Rig

    /// The nodes mpv's stream is linked to.
    static func musicPeers(_ rig: Rig) throws -> [PipeWireDump.Object] {
        let dump = try rig.sandbox.dump()
        let streams = Set(dump.nodes.filter {
            $0.mediaClass == "Stream/Output/Audio" && $0.property("application.name") == "music-player"
        }.map(\.id))
        let peers = Set(dump.nodeLinks.filter { streams.contains($0.output) }.map(\.input))
        return dump.nodes.filter { peers.contains($0.id) }
    }

    /// The `api.bluez5.profile` of every node mpv's stream is linked to.
    static func musicPlaysOn(_ rig: Rig) throws -> Set<String> {
        Set(try musicPeers(rig).map { $0.property("api.bluez5.profile") ?? $0.name ?? "?" })
    }

    /// The monitor's Decision signals for one session: kind, and the reason of a route change.
    static func decisions(of session: UInt64, in monitor: ManagedProcess) -> [String] {
        monitor.output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["signal"] as? String == "Decision", (object["session"] as? NSNumber)?.uint64Value == session,
                let kind = object["kind"] as? String
            else { return nil }
            let reason = (object["details"] as? [String: Any])?["reason"] as? String
            return reason.map { "\(kind) \($0)" } ?? kind
        }
    }

    /// To HFP as a program switches it (`save: false`): a route configuration change. Back to
    /// A2DP as its user picks it in a mixer (`save: true`): an override.
    @Test func aSwitchToHFPAndBackKeepsTheMusicPlayingOnTheHeadset() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let headset = try rig.sandbox.startBluetoothHeadset()
        let hfp = headset.shapes.index(of: .headsetHeadUnit)
        let a2dp = headset.shapes.index(of: .a2dpSink)
        let (monitor, oracle, music) = try await RealAppPolicyTests.musicPlayingUnderMonitor(rig)
        defer { monitor.terminate() }
        try await eventually("the music plays on the headset, the last device to come (now \((try? Self.musicPlaysOn(rig)) ?? []))") {
            try Self.musicPlaysOn(rig).allSatisfy { $0.hasPrefix("a2dp-sink") } && !Self.musicPlaysOn(rig).isEmpty
        }
        let before = Self.decisions(of: music.id, in: monitor).count

        try rig.sandbox.run("pw-cli", ["set-param", String(headset.globalID), "Profile", "{ index: \(hfp), save: false }"])
        try await eventually("the music plays on the headset's HFP sink (now \((try? Self.musicPlaysOn(rig)) ?? [])); log:\n\(rig.log)") {
            try Self.musicPlaysOn(rig) == ["headset-head-unit"]
        }
        #expect(try rig.status() == "Playing")
        try await eventually("the music's session heard the switch") {
            Self.decisions(of: music.id, in: monitor).dropFirst(before).contains("routeChanged routeConfigurationChange")
        }
        let toHFP = Array(Self.decisions(of: music.id, in: monitor).dropFirst(before))
        #expect(toHFP.filter { $0.hasPrefix("routeChanged") } == ["routeChanged routeConfigurationChange"], "\(toHFP)")
        #expect(!toHFP.contains("pauseForRouteLoss"), "\(toHFP)")

        let middle = Self.decisions(of: music.id, in: monitor).count
        try rig.sandbox.run("pw-cli", ["set-param", String(headset.globalID), "Profile", "{ index: \(a2dp), save: true }"])
        try await eventually("the music plays on the headset's A2DP sink again (now \((try? Self.musicPlaysOn(rig)) ?? []))") {
            let profiles = try Self.musicPlaysOn(rig)
            return !profiles.isEmpty && profiles.allSatisfy { $0.hasPrefix("a2dp-sink") }
        }
        try await eventually("the music's session heard the switch back (\(Self.decisions(of: music.id, in: monitor).dropFirst(middle)))") {
            Self.decisions(of: music.id, in: monitor).dropFirst(middle).contains { $0.hasPrefix("routeChanged") }
        }
        let back = Array(Self.decisions(of: music.id, in: monitor).dropFirst(middle))
        #expect(back.filter { $0.hasPrefix("routeChanged") } == ["routeChanged override"], "the user's saved choice: \(back)")
        #expect(!back.contains("pauseForRouteLoss"), "\(back)")
        #expect(try rig.status() == "Playing")
        #expect(try oracle.sessions().first { $0.id == music.id }?.activity == "active")
    }

    @Test func aHeadsetSwitchedOffPausesTheMusicOnceItsBoundEnds() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let headset = try rig.sandbox.startBluetoothHeadset()
        let (monitor, _, music) = try await RealAppPolicyTests.musicPlayingUnderMonitor(rig)
        defer { monitor.terminate() }
        try await eventually("the music plays on the headset") {
            let profiles = try Self.musicPlaysOn(rig)
            return !profiles.isEmpty && profiles.allSatisfy { $0.hasPrefix("a2dp-sink") }
        }
        try rig.sandbox.run("pw-cli", ["set-param", String(headset.globalID), "Profile", "{ index: 0, save: false }"])
        try await eventually("the headset is off (its profiles: \(headset.profileChanges))") { headset.activeProfile == "off" }
        try await rig.waitForStatus("Paused")
        try await eventually("the music's session heard its headset go (\(Self.decisions(of: music.id, in: monitor)))") {
            Self.decisions(of: music.id, in: monitor).contains("routeChanged oldDeviceUnavailable")
        }
    }

    /// A headset in A2DP, the last output in, with mpv's music playing on it.
    static func headsetPlayingMusic(_ rig: Rig, standIn: Bool = false) async throws -> BluetoothHeadset {
        let headset = try rig.sandbox.startBluetoothHeadset(standIn: standIn)
        _ = try await rig.startPlayingMusic()
        try await eventually("the music plays on the headset") {
            let profiles = try Self.musicPlaysOn(rig)
            return !profiles.isEmpty && profiles.allSatisfy { $0.hasPrefix("a2dp-sink") }
        }
        return headset
    }

    /// The headset's active profile as pw-dump shows it: its nodes' `api.bluez5.profile` (the
    /// sink and source a user has), else, with no nodes, its `Profile` param. Not the param
    /// first: the server's param cache can keep the old profile after a switch (docs/routes.md).
    static func activeProfile(of headset: BluetoothHeadset, in rig: Rig) throws -> String? {
        let dump = try rig.sandbox.dump()
        let nodes = dump.nodes.filter { $0.property("device.id") == String(headset.globalID) }
        if let profile = nodes.compactMap({ $0.property("api.bluez5.profile") }).first {
            let profiles = Set(nodes.compactMap { $0.property("api.bluez5.profile") })
            return profiles.count == 1 ? profile : "between \(profiles.sorted())"
        }
        let device = dump.objects.first { $0.id == headset.globalID }
        let params = (device?.info["params"] as? [String: Any])?["Profile"] as? [[String: Any]]
        return params?.first?["name"] as? String
    }

    /// A voiceChat call (an explicit session, `audiosessionctl run`) while the headset is the
    /// user's output: the headset goes to HFP for it, the call records from the headset's
    /// microphone, and the headset gets A2DP back after the call, with the music playing on it.
    /// With WirePlumber 0.5's stand-in (a WirePlumber for devices whose autoswitch was left on),
    /// the headset's microphone is the stand-in, in every profile, and the HFP source behind it is
    /// WirePlumber's alone: the call records from the stand-in.
    @Test(arguments: [false, true])
    func aCallTakesTheHeadsetToHFPAndGivesItBackAfter(withStandIn: Bool) async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let headset = try await Self.headsetPlayingMusic(rig, standIn: withStandIn)
        let call = try rig.sandbox.spawn(
            DaemonProcess.path(of: "audiosessionctl"),
            ["run", "--category", "playAndRecord", "--mode", "voiceChat", "--app", "voip", "--", "pw-record", "-P", "{ node.name = voip-mic }", "/dev/null"],
            extraEnvironment: rig.bus.environment)
        try await eventually("the headset is in HFP for the call (now \((try? Self.activeProfile(of: headset, in: rig)) ?? "?")); log:\n\(rig.log)") {
            try Self.activeProfile(of: headset, in: rig).map { BluetoothHeadset.Profile.headsetHeadUnit.matches($0) } == true
        }
        #expect(headset.profileRequests.allSatisfy { !$0.save }, "never saved as the user's choice")
        try await rig.waitUntilLinked("voip-mic", to: [headset.standInName ?? headset.sourceName])
        try await rig.waitForStatus("Paused")

        call.terminate()
        try await eventually("the headset is back in A2DP after the call (now \((try? Self.activeProfile(of: headset, in: rig)) ?? "?")); log:\n\(rig.log)", timeout: .seconds(15)) {
            try Self.activeProfile(of: headset, in: rig).map { BluetoothHeadset.Profile.a2dpSink.matches($0) } == true
        }
        try await rig.waitForStatus("Playing")
        try await eventually("the music plays on the headset's A2DP sink again (now \((try? Self.musicPlaysOn(rig)) ?? []))") {
            let profiles = try Self.musicPlaysOn(rig)
            return !profiles.isEmpty && profiles.allSatisfy { $0.hasPrefix("a2dp-sink") }
        }
    }

    /// Killed mid-call (SIGKILL), the daemon leaves the headset in HFP; its next start gives
    /// the headset back the profile its user had.
    @Test func aDaemonKilledMidCallGivesTheHeadsetBackAtItsNextStart() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let headset = try rig.sandbox.startBluetoothHeadset()
        let call = try rig.sandbox.spawn(
            DaemonProcess.path(of: "audiosessionctl"),
            ["run", "--category", "playAndRecord", "--mode", "voiceChat", "--app", "voip", "--", "sleep", "600"],
            extraEnvironment: rig.bus.environment)
        defer { call.terminate() }
        try await eventually("the headset is in HFP for the call (now \((try? Self.activeProfile(of: headset, in: rig)) ?? "?")); log:\n\(rig.log)") {
            try Self.activeProfile(of: headset, in: rig).map { BluetoothHeadset.Profile.headsetHeadUnit.matches($0) } == true
        }
        try rig.stopDaemon(SIGKILL)
        call.terminate()
        #expect(try Self.activeProfile(of: headset, in: rig).map { BluetoothHeadset.Profile.headsetHeadUnit.matches($0) } == true)
        try await rig.restartDaemon()
        try await eventually("the headset is back in A2DP (now \((try? Self.activeProfile(of: headset, in: rig)) ?? "?")); log:\n\(rig.log)") {
            try Self.activeProfile(of: headset, in: rig).map { BluetoothHeadset.Profile.a2dpSink.matches($0) } == true
        }
    }

    /// Whether the headset's active profile, as pw-dump shows it, is `profile`.
    static func headset(_ headset: BluetoothHeadset, isIn profile: BluetoothHeadset.Profile, in rig: Rig) throws -> Bool {
        try activeProfile(of: headset, in: rig).map { profile.matches($0) } == true
    }

    /// An implicit call: no API, a call by its streams (a speaker and a microphone with the
    /// `Communication` role, as a browser's WebRTC call has), while the headset is the user's
    /// output. The headset goes to HFP once the call has settled, the call records from its
    /// microphone, the music pauses; after the call the headset is back in A2DP with the music
    /// playing on it. A recorder that ran before, with no Bluetooth option, keeps the built-in
    /// microphone throughout and never switched the headset.
    @Test func anImplicitCallTakesTheHeadsetToHFPAndARecorderKeepsTheBuiltInMicrophone() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let headset = try await Self.headsetPlayingMusic(rig)
        let memo = try rig.sandbox.spawn("pw-record", ["-P", "{ node.name = memo }", "/dev/null"])
        defer { memo.terminate() }
        try await rig.waitUntilLinked("memo", to: ["mic"])

        let speaker = try rig.sandbox.play(role: "Communication", file: rig.tone, extraArguments: ["-P", "{ node.name = call }"])
        let microphone = try rig.sandbox.spawn(
            "pw-record", ["--media-role", "Communication", "-P", "{ node.name = call-mic }", "/dev/null"])
        try await eventually("the headset is in HFP for the call (now \((try? Self.activeProfile(of: headset, in: rig)) ?? "?")); log:\n\(rig.log)") {
            try Self.headset(headset, isIn: .headsetHeadUnit, in: rig)
        }
        #expect(headset.profileRequests.count == 1, "only the call switched it: \(headset.profileRequests)")
        #expect(headset.profileRequests.allSatisfy { !$0.save }, "never saved as the user's choice")
        try await rig.waitUntilLinked("call-mic", to: [headset.sourceName])
        try await rig.waitUntilLinked("call", to: [headset.sinkName])
        try await rig.waitForStatus("Paused")
        try await rig.waitUntilLinked("memo", to: ["mic"])

        speaker.terminate()
        microphone.terminate()
        try await eventually("the headset is back in A2DP after the call (now \((try? Self.activeProfile(of: headset, in: rig)) ?? "?")); log:\n\(rig.log)", timeout: .seconds(15)) {
            try Self.headset(headset, isIn: .a2dpSink, in: rig)
        }
        try await rig.waitForStatus("Playing")
        try await eventually("the music plays on the headset's A2DP sink again (now \((try? Self.musicPlaysOn(rig)) ?? []))") {
            let profiles = try Self.musicPlaysOn(rig)
            return !profiles.isEmpty && profiles.allSatisfy { $0.hasPrefix("a2dp-sink") }
        }
        try await rig.waitUntilLinked("memo", to: ["mic"])
    }

    /// Someone else (a mixer, another session manager) takes the headset back to A2DP during
    /// the call: the daemon switches it back once, and the second time leaves it to them, so
    /// the headset never flaps. After the call nothing is switched.
    @Test func aHeadsetSomeoneKeepsSwitchingBackDuringACallIsLeftToThem() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let headset = try rig.sandbox.startBluetoothHeadset()
        let a2dp = headset.shapes.index(of: .a2dpSink)
        let monitor = try DecisionMonitor(in: rig.sandbox, bus: rig.bus)
        defer { monitor.terminate() }
        let call = try rig.sandbox.spawn(
            DaemonProcess.path(of: "audiosessionctl"),
            ["run", "--category", "playAndRecord", "--mode", "voiceChat", "--app", "voip", "--", "sleep", "600"],
            extraEnvironment: rig.bus.environment)
        defer { call.terminate() }
        for turn in 1...2 {
            // Each turn: ours, then theirs (`pw-cli`, as a mixer).
            try await eventually("the headset is in HFP for the call, switched by us \(turn) time(s) (requests \(headset.profileRequests); now \((try? Self.activeProfile(of: headset, in: rig)) ?? "?")); log:\n\(rig.log)") {
                try headset.profileRequests.count == 2 * turn - 1 && Self.headset(headset, isIn: .headsetHeadUnit, in: rig)
            }
            try rig.sandbox.run("pw-cli", ["set-param", String(headset.globalID), "Profile", "{ index: \(a2dp), save: true }"])
        }
        try await eventually("the daemon says the headset is contested (decisions \(monitor.kinds)); log:\n\(rig.log)") {
            monitor.kinds.contains("headsetContested")
        }
        try await eventually("the headset stays in A2DP as they chose (now \((try? Self.activeProfile(of: headset, in: rig)) ?? "?"))") {
            try Self.headset(headset, isIn: .a2dpSink, in: rig)
        }
        let requests = headset.profileRequests
        #expect(requests.count == 4, "ours twice, the other program's twice: \(requests)")
    }
}
