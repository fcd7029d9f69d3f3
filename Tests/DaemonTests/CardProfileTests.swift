import Foundation
import PipeWireSandbox
import Testing

/// A sound card switching profile, as ALSA's cards do (the sandbox's card with an analog
/// duplex and an HDMI profile, switched with `pw-cli` as a mixer's profile list does): the
/// analog sink and source go and the HDMI sink comes, while the card stays. The music goes on
/// playing, now on HDMI, and its session hears one route change: `override` when the user saved
/// the profile, `routeConfigurationChange` when not. Read through `playerctl`, `pw-dump`,
/// `status --json` and the daemon's `Decision` signals.
@Suite("Sound cards: a profile switch is a route change, not an unplug", .serialized)
struct CardProfileTests {
    typealias Rig = MPRISInterruptionTests.Rig

    /// The `node.name` of every node mpv's stream is linked to.
    static func musicPlaysOn(_ rig: Rig) throws -> Set<String> {
        Set(try BluetoothProfileTests.musicPeers(rig).compactMap(\.name))
    }

    static func routeChanges(of music: SessionOracle.Session, in monitor: ManagedProcess, since start: Int) -> [String] {
        BluetoothProfileTests.decisions(of: music.id, in: monitor).dropFirst(start).filter { $0.hasPrefix("routeChanged") }
    }

    @Test func aSwitchToHDMIAndBackKeepsTheMusicPlaying() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let card = try rig.sandbox.startRouteDevice(name: "test-card", withHDMIProfile: true)
        let (monitor, oracle, music) = try await RealAppPolicyTests.musicPlayingUnderMonitor(rig)
        defer { monitor.terminate() }
        try await eventually("the music plays on the card's analog output, the last device to come (now \((try? Self.musicPlaysOn(rig)) ?? []))") {
            try Self.musicPlaysOn(rig) == [card.sinkName]
        }
        let before = BluetoothProfileTests.decisions(of: music.id, in: monitor).count

        // The user picks HDMI in the mixer's profile list, which saves it.
        try rig.sandbox.run("pw-cli", ["set-param", String(card.globalID), "Profile", "{ index: \(RouteDevice.ProfileIndex.hdmi.rawValue), save: true }"])
        try await eventually("the music plays on the card's HDMI sink (now \((try? Self.musicPlaysOn(rig)) ?? [])); log:\n\(rig.log)") {
            try Self.musicPlaysOn(rig) == [card.hdmiSinkName]
        }
        try await eventually("the music's session heard the switch (\(BluetoothProfileTests.decisions(of: music.id, in: monitor).dropFirst(before)))") {
            !Self.routeChanges(of: music, in: monitor, since: before).isEmpty
        }
        let toHDMI = Array(BluetoothProfileTests.decisions(of: music.id, in: monitor).dropFirst(before))
        #expect(Self.routeChanges(of: music, in: monitor, since: before) == ["routeChanged override"], "the user's saved choice: \(toHDMI); log:\n\(rig.log)")
        #expect(!toHDMI.contains("pauseForRouteLoss"), "\(toHDMI)")
        #expect(try rig.status() == "Playing")
        #expect(try oracle.sessions().first { $0.id == music.id }?.outputTypes == ["HDMI"])

        // A program switches it back without saving.
        let middle = BluetoothProfileTests.decisions(of: music.id, in: monitor).count
        try rig.sandbox.run("pw-cli", ["set-param", String(card.globalID), "Profile", "{ index: \(RouteDevice.ProfileIndex.analog.rawValue), save: false }"])
        try await eventually("the music plays on the analog output again (now \((try? Self.musicPlaysOn(rig)) ?? []))") {
            try Self.musicPlaysOn(rig) == [card.sinkName]
        }
        try await eventually("the music's session heard the switch back") {
            !Self.routeChanges(of: music, in: monitor, since: middle).isEmpty
        }
        let back = Array(BluetoothProfileTests.decisions(of: music.id, in: monitor).dropFirst(middle))
        #expect(Self.routeChanges(of: music, in: monitor, since: middle) == ["routeChanged routeConfigurationChange"], "\(back); log:\n\(rig.log)")
        #expect(!back.contains("pauseForRouteLoss"), "\(back)")
        #expect(try rig.status() == "Playing")
        #expect(try oracle.sessions().first { $0.id == music.id }.map { $0.outputTypes.allSatisfy { $0 != "HDMI" } } == true)
        #expect(card.profileChanges.map(\.profile) == [.hdmi, .analog])
    }

    /// Switched `off` in the mixer: no profile brings its ports back, so once the bound ends the
    /// card has gone as far as its sessions can tell, and the music pauses (pause on unplug).
    @Test func aCardSwitchedOffPausesTheMusicOnceItsBoundEnds() async throws {
        let rig = try await Rig().ready()
        defer { rig.stop() }
        let card = try rig.sandbox.startRouteDevice(name: "test-card", withHDMIProfile: true)
        let (monitor, _, music) = try await RealAppPolicyTests.musicPlayingUnderMonitor(rig)
        defer { monitor.terminate() }
        try await eventually("the music plays on the card") { try Self.musicPlaysOn(rig) == [card.sinkName] }
        try rig.sandbox.run("pw-cli", ["set-param", String(card.globalID), "Profile", "{ index: 0, save: false }"])
        try await rig.waitForStatus("Paused")
        // The monitor is a process of its own: the signal can reach its output after the player
        // said Paused (seen once in a census, the monitor's lines still `link`, `activated`).
        try await eventually(
            "the music's session heard its card go (decisions: \(BluetoothProfileTests.decisions(of: music.id, in: monitor))); log:\n\(rig.log)"
        ) {
            let decisions = BluetoothProfileTests.decisions(of: music.id, in: monitor)
            return decisions.contains("routeChanged oldDeviceUnavailable") && decisions.contains("pauseForRouteLoss")
        }
    }
}
