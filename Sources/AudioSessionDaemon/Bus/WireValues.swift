import SessionBus
import SessionPolicy

/// How engine values travel on the bus: ports as `(sssu)`, routes as `(a(sssu)a(sssu))`,
/// AVAudioSession errors as `org.audiosession.Error.<Name>` carrying Apple's code.
enum WireValues {
    static func port(_ port: Port) -> BusValue {
        .structure([.string(port.uid), .string(port.name), .string(port.type.wireName), .uint32(UInt32(max(0, port.channels)))])
    }

    static func ports(_ ports: [Port]) -> BusValue {
        .array(element: SessionAPI.port, ports.map(port))
    }

    /// `(id, name, location, orientation)`; "" where the card says nothing.
    static func dataSources(_ sources: [DataSource]) -> BusValue {
        .array(element: "(usss)", sources.map {
            .structure([.uint32($0.id), .string($0.name), .string($0.location?.wireName ?? ""), .string($0.orientation?.wireName ?? "")])
        })
    }

    /// A data source's id, -1 for none.
    static func dataSourceID(_ id: UInt32?) -> BusValue {
        .int32(id.map { Int32(truncatingIfNeeded: $0) } ?? -1)
    }

    static func route(_ route: RouteDescription) -> BusValue {
        .structure([ports(route.inputs), ports(route.outputs)])
    }

    /// What an MPRIS pause of ours is at: `none`, `pausing` (Pause pressed, not yet confirmed),
    /// `paused`, `heldInstead` (a player did not confirm: the streams are held) or `resuming`
    /// (Play pressed, its streams not running yet).
    static func mprisPause(_ pause: MPRISPause?) -> String {
        guard let pause else { return "none" }
        if pause.heldInstead { return "heldInstead" }
        switch pause.phase {
        case .pausing: return "pausing"
        case .paused: return "paused"
        case .resuming: return "resuming"
        }
    }

    /// `badParam` → `org.audiosession.Error.BadParam`, code -50.
    static func error(_ error: AudioSessionError, _ message: String) -> BusError {
        let name = error.wireName.prefix(1).uppercased() + error.wireName.dropFirst()
        return .audioSession(name, code: Int32(truncatingIfNeeded: error.code), message: message)
    }
}
