/// A device switching profile: a Bluetooth headset going from A2DP to HFP (or back), a card
/// going from analog to HDMI. The old profile's nodes go and the new profile's come, while the
/// device stays. That is no unplug: nothing pauses, and the device keeps its place in "last in
/// wins". The sessions on it hear one route change once the new ports are there: with
/// `categoryChange` when the daemon switched it (a call's category needs the headset's
/// microphone), `override` when its user chose the profile and saved it (a mixer's profile
/// list, `wpctl set-profile`), else with the reason iOS gives for a route that changed without
/// a plug (`routeConfigurationChange`).
///
/// Whether the user saved the profile is known only once the device reports its new profile
/// (``PolicyEvent/deviceProfileReported(device:profile:saved:)``), which a server sends after
/// the new nodes. The new ports are linked as they come; only the sessions' route change waits
/// for the report, or for the end of the switch's ``bound`` when none comes.
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
        /// The profile the device reported before the switch: a report of it again is a late
        /// one of the old profile, not the new profile's.
        var from: String?
        /// Whether the user saved the new profile, once the device reported it.
        var saved: Bool?
        /// The ports that came with this switch: one of them leaving is the next switch.
        var arrived: Set<String> = []
        /// The sessions whose route the switch changed, each with its route before, in the order
        /// they changed: they hear of it once the reason is known.
        var heldNotices: [(session: SessionID, previous: RouteDescription)] = []

        /// The reason the sessions on the device hear; nil while it waits for the device's report.
        var reason: RouteChangeReason? {
            if isOurs { return .categoryChange }
            return saved.map { $0 ? .override : .routeConfigurationChange }
        }
    }
}
