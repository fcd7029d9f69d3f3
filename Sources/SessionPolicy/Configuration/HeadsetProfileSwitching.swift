/// Who switches Bluetooth headsets between their media and call profiles
/// (`bluetooth.profile-switching`). Two switchers fight: each undoes the other's switch, and
/// the headset flaps between A2DP and HFP.
public enum HeadsetProfileSwitching: String, CaseIterable, Hashable, Sendable, WireNamed {
    /// The daemon switches while no other session manager does: alone, or beside a WirePlumber
    /// whose autoswitch is off (`bluetooth.autoswitch-to-headset-profile = false` in its
    /// `sm-settings`, as the drop-in in `contrib/wireplumber/` sets it). Otherwise it only
    /// follows the switches others make.
    case auto
    /// The daemon switches whatever else runs; its integrator has turned any other switcher
    /// off.
    case daemon
    /// The daemon never switches; it follows the switches others make.
    case never

    public var wireName: String { rawValue }
}
