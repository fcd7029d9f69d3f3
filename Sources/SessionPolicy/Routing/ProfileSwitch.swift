/// A device switching profile: a Bluetooth headset going from A2DP to HFP (or back), a card
/// going from analog to HDMI. The old profile's nodes go and the new profile's come, while the
/// device stays. That is no unplug: nothing pauses, and the device keeps its place in "last in
/// wins". The sessions on it hear one route change once the new ports are there: with
/// `categoryChange` when the daemon switched it (a call's category needs the headset's
/// microphone), else with the reason iOS gives for a route that changed without a plug
/// (`routeConfigurationChange`).
public enum ProfileSwitch {
    /// How long a device may take to bring its new profile's ports. bluez5 acquires the new
    /// transport first (a few hundred ms to a second and a half with real headsets); a device
    /// that brings none in this time (switched `off`) has gone as far as its sessions can tell,
    /// and is unplugged then.
    public static let bound: Duration = .seconds(3)

    /// A device's switch under way.
    struct State: Sendable {
        /// The "last in" stamp its new ports take, so that a switch is never a plug.
        var stamp: UInt64
        /// Which of its switches this is: a switch back within the bound of the last (a call's
        /// headset given back its music profile) gets a bound of its own, and the last one's
        /// end (``PolicyEvent/profileSwitchEnded(device:switch:)``) no longer ends it.
        var number: UInt64
        /// The daemon asked for this switch.
        var isOurs: Bool

        /// The reason the sessions on the device hear.
        var reason: RouteChangeReason { isOurs ? .categoryChange : .routeConfigurationChange }
    }
}
